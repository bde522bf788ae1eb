// Runs the orphan sweep and retention deletes every interval, one round at a time, until
// stopped. A failed round is logged and tried again next interval (the store or Redis may be
// away for a while; nothing is lost by waiting). Within a round each blob and each intake's
// markers are handled alone: one that fails is logged with its key, alerted once
// (`HousekeepingItemFailed`), and the round goes on.

import type { Logger } from '../log.js';
import type { BlobIndex } from './blob-index.js';
import { ItemFailures } from './item-failures.js';
import type { RawStore } from './raw-store.js';
import { deleteExpiredBlobs, deleteExpiredMarkers, type MarkerRetentionDeps, type OrphanSweepDeps, sweepOrphans } from './sweep.js';

export interface HousekeepingDeps {
  readonly store: RawStore;
  readonly index: BlobIndex;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly orphanAfterMs: OrphanSweepDeps['orphanAfterMs'];
  readonly intervalMs: number;
  /** See OrphanSweepDeps.accepted: the intake side's check of `accepted/` for an unreferenced blob. */
  readonly accepted?: OrphanSweepDeps['accepted'];
  /** Marker retention (RECORD_RETENTION_DAYS) and which ends let markers go; absent: markers are kept. */
  readonly markers?: Pick<MarkerRetentionDeps, 'retentionMs' | 'mayExpire' | 'endedAt'> | undefined;
  /** At most this many `ended/` markers read a round (default 500); see RememberedEnds. */
  readonly markerReadsPerRound?: number | undefined;
  /** Raises an operator alert (once per failed item's key). */
  readonly alert?: ((code: string) => void) | undefined;
}

export interface HousekeepingRound {
  readonly orphans: number;
  readonly expired: number;
  /** Items this round could not handle (logged, left for the next round). */
  readonly errors: number;
}

export interface Housekeeping {
  /** One round now (tests, and the first round at start). */
  runOnce(): Promise<HousekeepingRound>;
  /** Stops the timer and waits for a round in progress. */
  stop(): Promise<void>;
}

export function startHousekeeping(deps: HousekeepingDeps): Housekeeping {
  const { store, index, clock, logger } = deps;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const failures = new ItemFailures(logger, 'raw_store.housekeeping_item_failed', 'HousekeepingItemFailed', deps.alert);
  const failed = (key: string, err: unknown): void => failures.record(key, err, { store: store.location });
  const ends =
    deps.markers?.endedAt === undefined || store.keepsTimesOnReplace
      ? undefined
      : new RememberedEnds(deps.markers.endedAt, deps.markerReadsPerRound ?? MARKER_READS_PER_ROUND);
  let pending = 0;
  const round = async (): Promise<HousekeepingRound> => {
    const before = failures.count;
    const expired = await deleteExpiredBlobs({ store, due: index.due, forget: index.forget, clock, failed });
    const swept = await sweepOrphans({
      store,
      referenced: index.referenced,
      forget: index.forget,
      clock,
      orphanAfterMs: deps.orphanAfterMs,
      accepted: deps.accepted,
      failed,
    });
    let markers = 0;
    try {
      if (deps.markers !== undefined)
        markers = await deleteExpiredMarkers({ store, clock, ...deps.markers, endedAt: ends?.endedAt, failed });
    } finally {
      ends?.roundEnded();
    }
    const errors = failures.count - before;
    if (expired > 0 || swept.deleted > 0 || markers > 0 || errors > 0) {
      logger.info(
        { event: 'raw_store.housekeeping', expired, orphans: swept.deleted, markers, errors, store: store.location },
        'raw store housekeeping',
      );
    }
    return { orphans: swept.deleted, expired, errors };
  };
  const runOnce = (): Promise<HousekeepingRound> => {
    pending += 1;
    const next = running.then(round).finally(() => {
      pending -= 1;
    });
    running = next.catch(() => undefined);
    return next;
  };
  const timer = setInterval(() => {
    // A round still running is not queued behind: the next tick starts one once it is over.
    if (stopped || pending > 0) return;
    runOnce().catch((err: unknown) => logger.warn({ event: 'raw_store.housekeeping_failed', err }, 'raw store housekeeping failed'));
  }, deps.intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

type EndedAt = NonNullable<MarkerRetentionDeps['endedAt']>;

const MARKER_READS_PER_ROUND = 500;
/** Ends remembered at most: past it no more are read, and those markers go by their listing time. */
const REMEMBERED_ENDS = 200_000;

/**
 * Each intake's end read from its marker once per process, not every round (on S3 that is a GET per
 * intake ended within the retention), keyed by the listing's time: a new end is a new put. At most
 * `perRound` reads a round, so a round (and the blob retention behind it) stays short after a
 * restart: a marker not read yet is kept, and a later round reads it. At most REMEMBERED_ENDS are
 * held; a marker past that waits for its listing time (never earlier than its end) to pass the
 * retention. What a round did not ask about (the marker went) is forgotten when the round ends.
 */
class RememberedEnds {
  #asked = new Map<string, { readonly modifiedAt: number; readonly at: number | undefined }>();
  #earlier = new Map<string, { readonly modifiedAt: number; readonly at: number | undefined }>();
  #reads = 0;
  constructor(
    private readonly read: EndedAt,
    private readonly perRound: number,
  ) {}
  readonly endedAt: EndedAt = async (intakeId, modifiedAt) => {
    const known = this.#asked.get(intakeId) ?? this.#earlier.get(intakeId);
    if (known?.modifiedAt === modifiedAt) {
      this.#asked.set(intakeId, known);
      return known.at;
    }
    if (this.#reads >= this.perRound || this.#asked.size >= REMEMBERED_ENDS) return undefined; // kept: a later round reads it
    this.#reads += 1;
    const at = await this.read(intakeId, modifiedAt);
    this.#asked.set(intakeId, { modifiedAt, at });
    return at;
  };
  roundEnded(): void {
    this.#earlier = this.#asked;
    this.#asked = new Map();
    this.#reads = 0;
  }
}
