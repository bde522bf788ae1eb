// Housekeeping for the raw store, run periodically by the worker role:
// - orphans: blobs no intake record points at (a listener died between the store's commit and
//   Redis, a re-delivery's second copy, a probe left by a crash) and incomplete writes, once
//   they are older than a bound that no acceptance in progress can reach;
// - retention: blobs of ended intakes whose retention is over (Redis says which are due).
// Both only delete, and deleting twice is harmless, so several workers may sweep at once.
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
    const orphans = batch.filter((key) => !live.has(key));
    for (const key of orphans) await deps.store.delete(key);
    if (orphans.length > 0) await deps.forget(orphans);
    deleted += orphans.length;
    kept += batch.length - orphans.length;
    batch = [];
  };
  for await (const blob of deps.store.listOlderThan(deps.clock() - deps.orphanAfterMs)) {
    if (blob.incomplete) {
      await deps.store.delete(blob.key);
      deleted += 1;
      continue;
    }
    batch.push(blob.key);
    if (batch.length >= BATCH) await settle();
  }
  if (batch.length > 0) await settle();
  return { deleted, kept };
}

export interface RetentionDeps {
  readonly store: RawStore;
  /** Keys whose retention ended by `now`, at most `limit`. */
  readonly due: (now: number, limit: number) => Promise<readonly string[]>;
  /** Called after the blobs are deleted: their index entries go. */
  readonly forget: (keys: readonly string[]) => Promise<void>;
  readonly clock: () => number;
}

/** Deletes every blob whose retention is over; returns how many. */
export async function deleteExpiredBlobs(deps: RetentionDeps): Promise<number> {
  let deleted = 0;
  for (;;) {
    const keys = await deps.due(deps.clock(), BATCH);
    if (keys.length === 0) return deleted;
    for (const key of keys) await deps.store.delete(key);
    await deps.forget(keys);
    deleted += keys.length;
    if (keys.length < BATCH) return deleted;
  }
}
