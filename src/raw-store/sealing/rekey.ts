// `letter-intake rekey`: after a key rotation (RAW_STORE_KEYS old,new), every marker is opened
// under whichever key sealed it and sealed again under the writing key, so the old key can go
// once the blobs it sealed have gone by RAW_RETENTION_DAYS. Blobs are not rewritten: a blob's key
// is where its record points, and it lives only until its retention ends.
import { MARKER_KINDS, type RawStore } from '../raw-store.js';

export interface RekeyReport {
  readonly markers: number;
  /** Markers that did not open under any configured key: left as they are, named. */
  readonly unopened: readonly string[];
}

/** `store` is the sealed store (opened with every key, the new one writing). */
export async function rekeyMarkers(store: RawStore): Promise<RekeyReport> {
  let markers = 0;
  const unopened: string[] = [];
  for (const kind of MARKER_KINDS) {
    for await (const { id } of store.listMarkers(kind)) {
      let body: string | undefined;
      try {
        body = await store.getMarker(kind, id);
      } catch {
        unopened.push(`${kind}/${id}`);
        continue;
      }
      if (body === undefined) continue; // gone meanwhile
      await store.putMarker(kind, id, body, 'replace');
      markers++;
    }
  }
  return { markers, unopened };
}
