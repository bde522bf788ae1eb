// The processor of the "notices" queue: decide, compose, send once, record each step.
//
// Exactly once, as far as SMTP allows. The record's checkpoint moves
//   queued → sending          before connecting (Message-ID fixed for the notice)
//   sending → committed       after the relay said 354 and the content went out, just before the "."
//   committed → sent          right after the relay's 250
// A later attempt that finds `sending` sends again: the relay never got the ".", so the message
// is not there. One that finds `committed` cannot ask the relay whether it took the message
// (RFC 1047), and sends nothing: the notice is recorded `unconfirmed` (at most once), since a
// duplicate notice is worse than the small chance that a relay which read the "." dropped it.
import { type Job, UnrecoverableError } from 'bullmq';
import type { NoticeEntry, NoticeState } from '../intake/notice-fields.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { SenderDirectory } from '../senders/directory.js';
import { type ComposedNotice, composeNotice } from './compose.js';
import { ABSENT, type FromState, type NoticeLedger } from './ledger.js';
import { readOriginalHeaders } from './original-headers.js';
import { noticeFor } from './policy.js';
import type { NoticeJobData } from './queue.js';
import { type NoticeRelay, RelayError } from './relay.js';

export interface DeliverDeps {
  readonly store: Pick<IntakeStore, 'get'>;
  /** Where the intakes' messages are: a notice returns its original's header block. */
  readonly rawStore: RawStore;
  readonly ledger: NoticeLedger;
  readonly directory: SenderDirectory;
  /** Undefined without NOTICE_SMTP_URL: notices are composed and recorded, not sent. */
  readonly relay: NoticeRelay | undefined;
  /** NOTICE_FROM. */
  readonly from: string;
  /** The gateway's host name (Reporting-MTA). */
  readonly hostname: string;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly observer: IntakeObserver;
}

const NOT_STARTED: readonly FromState[] = [ABSENT, 'queued'];

export function createNoticeProcessor(deps: DeliverDeps) {
  return async function deliverNotice(job: Job<NoticeJobData>): Promise<NoticeState | 'gone'> {
    const { intakeId, kind } = job.data;
    const log = deps.logger.child({ intakeId, kind, job: job.id, attempt: job.attemptsMade + 1 });
    const record = await deps.store.get(intakeId);
    if (record === undefined) return 'gone';
    const current = record.notices?.[kind];
    const move = async (from: readonly FromState[], entry: Omit<NoticeEntry, 'at'>): Promise<boolean> => {
      const moved = await deps.ledger.move(intakeId, kind, from, { ...entry, at: deps.clock() });
      if (moved.ok) {
        deps.observer.noticeState(kind, entry.state);
        log.info({ event: `notice.${entry.state}`, reason: entry.reason, messageId: entry.messageId }, `notice ${entry.state}`);
      }
      return moved.ok;
    };

    if (current !== undefined && !['queued', 'sending', 'committed'].includes(current.state)) return current.state;
    if (current?.state === 'committed') {
      await move(['committed'], {
        ...current,
        state: 'unconfirmed',
        reason: 'the relay may have it: the last attempt stopped after handing it over, so it is not sent again',
      });
      return 'unconfirmed';
    }

    const originalHeaders = await readOriginalHeaders(deps.rawStore, record);
    const sender = record.senderId === undefined ? deps.directory.byAddress(record.from) : deps.directory.bySenderId(record.senderId);
    const decision = noticeFor(record, kind, sender, originalHeaders);
    if (!decision.due) {
      await move([...NOT_STARTED, 'sending'], { state: 'suppressed', reason: decision.reason });
      return 'suppressed';
    }
    const notice = await composeNotice({
      record,
      kind,
      to: decision.to,
      from: deps.from,
      reportingMta: deps.hostname,
      originalHeaders: originalHeaders ?? '',
      now: deps.clock(),
    });
    const shown = { messageId: notice.messageId, to: decision.to, subject: notice.subject, text: notice.text };
    if (deps.relay === undefined) {
      await move([...NOT_STARTED, 'sending'], { ...shown, state: 'unsent', reason: 'not sent: no relay configured (NOTICE_SMTP_URL)' });
      return 'unsent';
    }
    if (!(await move([...NOT_STARTED, 'sending'], { ...shown, state: 'sending' }))) {
      throw new UnrecoverableError(`notice ${kind} of ${intakeId} moved on meanwhile`);
    }
    return send(deps.relay, notice, decision.to, job, move);
  };
}

async function send(
  relay: NoticeRelay,
  notice: ComposedNotice,
  to: string,
  job: Job<NoticeJobData>,
  move: (from: readonly FromState[], entry: Omit<NoticeEntry, 'at'>) => Promise<boolean>,
): Promise<NoticeState> {
  const shown = { messageId: notice.messageId, to, subject: notice.subject, text: notice.text };
  try {
    await relay.send(to, notice.raw, async () => {
      if (!(await move(['sending'], { ...shown, state: 'committed' }))) throw new Error('the notice moved on meanwhile');
    });
  } catch (err) {
    if (!(err instanceof RelayError)) throw err;
    if (err.unconfirmed) {
      await move(['committed'], { ...shown, state: 'unconfirmed', reason: `no reply after the message was handed over: ${err.message}` });
      return 'unconfirmed';
    }
    const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    if (err.permanent || last) {
      await move(['sending', 'committed'], { ...shown, state: 'failed', reason: err.message });
      throw new UnrecoverableError(`notice failed: ${err.message}`);
    }
    // The relay answered with a temporary refusal, or never got the ".": try again.
    await move(['committed'], { ...shown, state: 'sending', reason: err.message });
    throw err;
  }
  await move(['committed'], { ...shown, state: 'sent' });
  return 'sent';
}
