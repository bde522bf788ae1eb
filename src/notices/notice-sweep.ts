// A notice's entry must not wait for an event that never comes: BullMQ fails a notice job on its
// own when it stalls too often, and a processor that throws something unexpected on its last
// attempt leaves the job failed with the entry where it was (`queued`, `sending`, `committed`).
// Each worker sweeps the notices' jobs failed in the last hour (runtime/worker-part.ts): an
// entry its failed job left unfinished is ended, with the job's reason, an error log and the
// operator alert. The entry's checkpoints decide how it ends (abandonedEnd); a finished one is
// left alone.
import type { Job, Queue } from 'bullmq';
import { NOTICE_FAILURES } from '../errors.js';
import type { NoticeState } from '../intake/notice-fields.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import { isNoticeKind, type NoticeKind } from '../words/notice-kind.js';
import { NOTICE_SWEEP_LOOKBACK_MS } from '../words/notice-lifetime.js';
import { ABSENT, type FromState, type NoticeLedger } from './ledger.js';
import type { NoticeJobData } from './queue.js';

/**
 * Jobs that failed longer ago than this are not looked at again. A job fails while some worker
 * runs (BullMQ's stalled check runs in workers), and every worker sweeps at start and then every
 * WORKER_SWEEP_INTERVAL_MS: an hour leaves room for restarts without re-reading a day of a relay's
 * refusals (recorded `failed` by the processor itself) every round.
 */
const LOOKBACK_MS = NOTICE_SWEEP_LOOKBACK_MS;
const PAGE = 200;
/** A sweep looks at no more than this many failed jobs (the newest first). */
const MAX_PER_SWEEP = 5000;

/**
 * How an entry left unfinished by a failed job ends (pure): before the message was handed over
 * (no entry yet, `queued`, `sending`) it was not sent; once `committed` the relay may have it.
 */
function abandonedEnd(state: FromState): 'failed' | 'unconfirmed' | undefined {
  if (state === ABSENT || state === 'queued' || state === 'sending') return 'failed';
  if (state === 'committed') return 'unconfirmed';
  return undefined;
}

export interface NoticeSweepDeps {
  readonly queue: Queue<NoticeJobData>;
  readonly ledger: NoticeLedger;
  readonly store: Pick<IntakeStore, 'get'>;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
}

export interface EndedNotice {
  readonly intakeId: string;
  readonly kind: NoticeKind;
  readonly state: NoticeState;
}

/** One sweep; resolves with the notices it ended. */
export async function sweepAbandonedNotices(deps: NoticeSweepDeps): Promise<EndedNotice[]> {
  const since = deps.clock() - LOOKBACK_MS;
  const ended: EndedNotice[] = [];
  for (let start = 0; start < MAX_PER_SWEEP; start += PAGE) {
    const jobs = await deps.queue.getFailed(start, start + PAGE - 1); // the most recently failed first
    for (const job of jobs) {
      if ((job.finishedOn ?? 0) < since) return ended;
      const notice = await endIfUnfinished(deps, job);
      if (notice !== undefined) ended.push(notice);
    }
    if (jobs.length < PAGE) break;
  }
  return ended;
}

async function endIfUnfinished(deps: NoticeSweepDeps, job: Job<NoticeJobData>): Promise<EndedNotice | undefined> {
  const { intakeId, kind } = job.data;
  if (typeof intakeId !== 'string' || !isNoticeKind(kind)) return undefined; // not a job this gateway made
  const record = await deps.store.get(intakeId);
  if (record === undefined) return undefined; // expired with its intake
  const entry = record.notices?.[kind];
  const current: FromState = entry?.state ?? ABSENT;
  const state = abandonedEnd(current);
  if (state === undefined) return undefined;
  const failedReason = job.failedReason || 'no reason given';
  const reason =
    state === 'unconfirmed'
      ? `the relay may have it: its job failed after the message was handed over (${failedReason}), so it is not sent again`
      : `not sent: its job failed and will not run again (${failedReason})`;
  const moved = await deps.ledger.move(intakeId, kind, [current], { ...entry, state, at: deps.clock(), reason });
  if (!moved.ok) return undefined; // it moved on meanwhile
  deps.observer.noticeState(kind, state);
  deps.observer.operatorAlert('NoticeAbandoned');
  deps.logger.error(
    { event: `notice.${state}`, intakeId, kind, job: job.id, errorCode: 'NoticeAbandoned', reason },
    NOTICE_FAILURES.NoticeAbandoned,
  );
  return { intakeId, kind, state };
}
