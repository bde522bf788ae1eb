// Housekeeping for the raw store, run periodically by the worker role:
// - orphans: blobs no intake record points at (a listener died between the store's commit and
//   Redis, a re-delivery's second copy, a probe left by a crash) and incomplete writes, once
//   they are older than a bound that no acceptance in progress can reach; a blob an `accepted/`
//   marker names is never an orphan (Redis lost its record: it is recovered instead);
// - retention: blobs of ended intakes whose retention is over (Redis says which are due), and
//   the markers of intakes that ended with a letter or a rejection, `ended/` last.
// Both only delete, and deleting twice is harmless, so several workers may sweep at once. Each
// blob and each intake's markers are handled alone: one that fails is handed to `failed` (keyed
// by blob key, or `<kind>/<id>` for a marker) and left for the next round, and the others go on.
import type { RawStore } from './raw-store.js';

export interface OrphanSweepDeps {
  readonly store: RawStore;
  /** The keys among `keys` that an intake record points at. */
  readonly referenced: (keys: readonly string[]) => Promise<ReadonlySet<string>>;
  /** Forgets index entries of deleted orphans (an expired record's blob). */
  readonly forget: (keys: readonly string[]) => Promise<void>;
  readonly clock: () => number;
  /** Blobs younger than this are never orphans (an acceptance may still be writing its record). */
  readonly orphanAfterMs: number;
  /** Asked for each unreferenced blob before it is deleted: true keeps it (it may have been answered 250). */
  readonly accepted?: ((key: string) => Promise<boolean>) | undefined;
  /** Told of a blob that could not be judged or deleted; it is kept until the next round. */
  readonly failed?: ItemFailed | undefined;
}

/** Told of one item a round could not handle: the round goes on without it. */
export type ItemFailed = (key: string, err: unknown) => void;

/** Runs one item's work; a failure goes to `failed` (or nowhere) and resolves false. */
async function alone(key: string, failed: ItemFailed | undefined, work: () => Promise<void>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    failed?.(key, err);
    return false;
  }
}

export interface SweepResult {
  readonly deleted: number;
  readonly kept: number;
}

const BATCH = 100;

export async function sweepOrphans(deps: OrphanSweepDeps): Promise<SweepResult> {
  let deleted = 0;
  let kept = 0;
  let batch: string[] = [];
  const settle = async (): Promise<void> => {
    const live = await deps.referenced(batch);
    const orphans: string[] = [];
    for (const key of batch) {
      if (live.has(key)) continue;
      await alone(key, deps.failed, async () => {
        if ((await deps.accepted?.(key)) === true) return;
        await deps.store.delete(key);
        orphans.push(key);
      });
    }
    if (orphans.length > 0) await deps.forget(orphans);
    deleted += orphans.length;
    kept += batch.length - orphans.length;
    batch = [];
  };
  for await (const blob of deps.store.listOlderThan(deps.clock() - deps.orphanAfterMs)) {
    if (blob.incomplete) {
      if (await alone(blob.key, deps.failed, () => deps.store.delete(blob.key))) deleted += 1;
      continue;
    }
    batch.push(blob.key);
    if (batch.length >= BATCH) await settle();
  }
  if (batch.length > 0) await settle();
  return { deleted, kept };
}

export interface MarkerRetentionDeps {
  readonly store: RawStore;
  readonly clock: () => number;
  /** Markers whose `ended/` is older than this go (RECORD_RETENTION_DAYS). */
  readonly retentionMs: number;
  /** Whether the intake's end lets its markers go (a failed intake's stay: it waits for a replay). */
  readonly mayExpire: (intakeId: string) => Promise<boolean>;
  /**
   * When the intake ended, as its `ended/` marker says; asked for a marker the listing shows as
   * younger than the retention: a rekey on S3 puts every marker again, and its LastModified is then
   * the rekey's. Never asked of a store that keeps the time on replace (a directory). Absent, or
   * answering undefined (not read this round): the listing's time alone decides. `modifiedAt` is
   * the listing's (a cache key).
   */
  readonly endedAt?: ((intakeId: string, modifiedAt: number) => Promise<number | undefined>) | undefined;
  /** Told of an intake whose markers could not be judged or deleted (key `ended/<id>`): kept until the next round. */
  readonly failed?: ItemFailed | undefined;
}

/** Deletes the markers of intakes that ended before the retention period; returns how many intakes. */
export async function deleteExpiredMarkers(deps: MarkerRetentionDeps): Promise<number> {
  const before = deps.clock() - deps.retentionMs;
  // Where a replace keeps the time, the listing's is the end's: reading the marker tells nothing more.
  const endedAt = deps.store.keepsTimesOnReplace ? undefined : deps.endedAt;
  let deleted = 0;
  for await (const marker of deps.store.listMarkers('ended')) {
    // The listing's time is never earlier than the end it records: only a younger one is asked about.
    const young = marker.modifiedAt >= before;
    if (young && endedAt === undefined) continue;
    let gone = false;
    await alone(`ended/${marker.id}`, deps.failed, async () => {
      if (young) {
        const at = await endedAt?.(marker.id, marker.modifiedAt);
        if (at === undefined || at >= before) return;
      }
      if (!(await deps.mayExpire(marker.id))) return;
      // accepted/ first, and the others only once it is gone: recover trusts the absence of
      // letter/ or ended/ only while accepted/ is still there (intake/recover.ts).
      await deps.store.deleteMarker('accepted', marker.id);
      await deps.store.deleteMarker('letter', marker.id);
      await deps.store.deleteMarker('ended', marker.id); // last: while it is there, recover restores the intake ended
      gone = true;
    });
    if (gone) deleted += 1;
  }
  return deleted;
}

export interface RetentionDeps {
  readonly store: RawStore;
  /** Keys whose retention ended by `now`, at most `limit`. */
  readonly due: (now: number, limit: number) => Promise<readonly string[]>;
  /** Called after the blobs are deleted: their index entries go. */
  readonly forget: (keys: readonly string[]) => Promise<void>;
  readonly clock: () => number;
  /** Told of a blob that could not be deleted: it stays due, for the next round. */
  readonly failed?: ItemFailed | undefined;
}

/** Deletes every blob whose retention is over; returns how many. */
export async function deleteExpiredBlobs(deps: RetentionDeps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const keys = await deps.due(deps.clock(), BATCH);
    if (keys.length === 0) return deleted;
    const gone: string[] = [];
    for (const key of keys) if (await alone(key, deps.failed, () => deps.store.delete(key))) gone.push(key);
    if (gone.length > 0) await deps.forget(gone);
    deleted += gone.length;
    // One that failed is due again at once: the next round tries it, not this loop.
    if (keys.length < BATCH || gone.length < keys.length) return deleted;
  }
}
