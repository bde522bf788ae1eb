// The BullMQ queue "notices": one job per intake and outcome (job id `<intakeId>-<kind>`, so a
// second enqueue of the same notice is a no-op while the job exists; the record's checkpoint
// covers the time after). `onOutcome` is the one call the intake processor makes: it only enqueues.
import { type ConnectionOptions, type JobsOptions, Queue } from 'bullmq';
import type { NoticeState } from '../intake/notice-fields.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeRecord } from '../intake/record.js';
import type { Logger } from '../log.js';
import type { SenderDirectory } from '../senders/directory.js';
import type { NoticeKind } from '../words/notice-kind.js';
import { NOTICE_BACKOFF_MS } from '../words/notice-lifetime.js';
import { ABSENT, type NoticeLedger } from './ledger.js';
import { leftFailed, wantsNotice } from './policy.js';

export const NOTICE_QUEUE = 'notices';

export interface NoticeJobData {
  readonly intakeId: string;
  readonly kind: NoticeKind;
}

export const noticeJobId = (intakeId: string, kind: NoticeKind): string => `${intakeId}-${kind}`;

export function noticeJobOptions(intakeId: string, kind: NoticeKind, attempts: number): JobsOptions {
  return {
    jobId: noticeJobId(intakeId, kind),
    attempts,
    backoff: { type: 'exponential', delay: NOTICE_BACKOFF_MS },
    removeOnComplete: { age: 24 * 3600, count: 10_000 },
    removeOnFail: { age: 30 * 24 * 3600 },
  };
}

export function createNoticeQueue(connection: ConnectionOptions, prefix: string): Queue<NoticeJobData> {
  return new Queue<NoticeJobData>(NOTICE_QUEUE, { connection, prefix });
}

export interface NoticeOutcomes {
  /**
   * The intake ended in `state`: queue the notice it earns, if its sender wants that kind.
   * `read`: the record as the caller read it while it held the intake, which says whether the
   * intake left `failed` before (its earlier runs); without it Redis is asked. Answers with the
   * notice's state as this call left it: `queued` when it queued it, the state it found when the
   * notice had one already (the notice worker may have taken the job first), undefined when the
   * sender wants none.
   */
  onOutcome(
    intakeId: string,
    state: NoticeKind,
    senderId: string | undefined,
    read?: Pick<IntakeRecord, 'earlierRuns'>,
  ): Promise<NoticeState | undefined>;
}

export interface NoticeQueueDeps {
  readonly queue: Queue<NoticeJobData>;
  readonly ledger: NoticeLedger;
  readonly directory: SenderDirectory;
  readonly attempts: number;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
}

export function noticesFor(deps: NoticeQueueDeps): NoticeOutcomes {
  return {
    async onOutcome(intakeId, kind, senderId, read) {
      const sender = senderId === undefined ? undefined : deps.directory.bySenderId(senderId);
      // needed only for a confirmation the sender did not ask for
      const afterFailure =
        !wantsNotice(kind, sender, false) && (read === undefined ? await deps.ledger.leftFailed(intakeId) : leftFailed(read));
      if (!wantsNotice(kind, sender, afterFailure)) return undefined;
      await deps.queue.add('notice', { intakeId, kind }, noticeJobOptions(intakeId, kind, deps.attempts));
      // After the job exists: a crash in between leaves a job whose processor starts from "absent".
      const moved = await deps.ledger.move(intakeId, kind, [ABSENT], { state: 'queued', at: deps.clock() });
      if (!moved.ok) return moved.state === ABSENT || moved.state === 'gone' ? undefined : moved.state;
      deps.observer.noticeState(kind, 'queued');
      deps.logger.info({ event: 'notice.queued', intakeId, kind }, 'notice queued');
      return 'queued';
    },
  };
}
