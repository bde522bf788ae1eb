// A run's end in one round trip for the record: the final transition answers with the record as
// it left it, the notice is decided from the record the claim read, and `ended/` is written from
// those two answers, with nothing read back from Redis.
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import type { EndedMarker } from '../../src/intake/markers.js';
import type { NoticeState } from '../../src/intake/notice-fields.js';
import { silentObserver } from '../../src/intake/observer.js';
import type { IntakeJobData } from '../../src/intake/queue.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import type { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { rejected, submitted } from '../../src/worker/record-end.js';
import type { ProcessorDeps, Run } from '../../src/worker/run.js';

const NOW = 1_800_000_000_000;

/** The record as the claim returned it: a replay of a run that failed. */
const claimed = {
  intakeId: 'in-1',
  state: 'processing',
  receivedAt: NOW - 5000,
  timeline: { processing: NOW - 100 },
  senderId: 'sender-1',
  earlierRuns: [{ timeline: { failed: NOW - 4000 }, errorCode: 'InsufficientAuthorization' }],
  notices: { failed: { state: 'sent', at: NOW - 3000 } },
} as unknown as IntakeRecord;

function endingRun(answer: { noticeState: NoticeState | undefined }) {
  const asked: unknown[][] = [];
  const written: EndedMarker[] = [];
  const store: Pick<IntakeStore, 'transitionAndRead' | 'get'> = {
    async transitionAndRead(_id, _from, to, at, update = {}) {
      // what the script leaves: the fields, the state, the error fields of the failed run cleared
      const record = { ...claimed, ...update, state: to, timeline: { ...claimed.timeline, [to]: at } } as IntakeRecord;
      return { ok: true, record };
    },
    async get() {
      throw new Error('the end read the record back');
    },
  };
  const deps = {
    store,
    clock: () => NOW,
    observer: silentObserver,
    notices: {
      onOutcome: async (...args: unknown[]) => {
        asked.push(args);
        return answer.noticeState;
      },
    },
    markers: { putEnded: async (marker: EndedMarker) => void written.push(marker) },
  };
  const run: Run = {
    deps: deps as unknown as ProcessorDeps,
    log: createLogger({ level: 'silent' }),
    job: { attemptsMade: 0, opts: { attempts: 3 } } as unknown as Job<IntakeJobData>,
    owner: { store: store as unknown as IntakeStore, intakeId: 'in-1', token: 'token-1' },
    record: claimed,
    abort: new AbortController().signal,
    facts: { senderId: 'sender-1' },
  };
  return { run, asked, written };
}

describe("a run's end", () => {
  it('decides the notice from the record the claim read, and writes ended/ from the answers, reading nothing back', async () => {
    const { run, asked, written } = endingRun({ noticeState: 'queued' });
    expect(await submitted(run, 'letter-1', 'PendingApproval')).toEqual({ kind: 'submitted', letterId: 'letter-1' });
    expect(asked).toEqual([['in-1', 'submitted', 'sender-1', claimed]]);
    expect(written).toEqual([
      {
        v: 1,
        intakeId: 'in-1',
        outcome: 'submitted',
        at: NOW,
        letterId: 'letter-1',
        letterStatus: 'PendingApproval',
        senderId: 'sender-1',
        notice: 'queued',
      },
    ]);
  });

  it('writes the state the notice call found when the notice was taken before it could queue it', async () => {
    const { run, written } = endingRun({ noticeState: 'sending' });
    await rejected(run, 'NoPdfAttachment', 'no PDF');
    expect(written).toMatchObject([{ outcome: 'rejected', reasonCode: 'NoPdfAttachment', notice: 'sending' }]);
  });

  it('writes no notice when the sender wants none', async () => {
    const { run, written } = endingRun({ noticeState: undefined });
    await submitted(run, 'letter-2', 'PendingApproval');
    expect(written[0]?.notice).toBeUndefined();
  });
});
