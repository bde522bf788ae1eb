// The gate every Sender API call passes (the worker's circuit): a held call never reaches the
// API and fails ApiHeld with the wait; a call let through reports its answer back, and a call we
// stopped ourselves reports that it was stopped. Against the sandbox over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type Admission, ApiHeld, createSenderApiClient } from '../../src/sender-api/index.js';
import { ACME, startTestSandbox, type TestSandbox, testDirectory } from '../helpers/sandbox.js';

const logger = createLogger({ level: 'silent' });
let sandbox: TestSandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox({ directory: testDirectory() });
});
afterAll(async () => {
  await sandbox.close();
});

function gated(answer: () => Admission) {
  const calls: string[] = [];
  const client = createSenderApiClient({
    baseUrl: sandbox.url,
    clock: Date.now,
    timeoutMs: 5000,
    logger,
    onCall: (e) => calls.push(`${e.endpoint} ${e.status ?? 'none'}`),
    gate: { admit: answer },
  });
  return { session: client.as(ACME), calls };
}

describe('the gate before each Sender API call', () => {
  it('holds a call without sending it: ApiHeld with the wait, no request, no call event', async () => {
    const { session, calls } = gated(() => ({ go: false, heldMs: 4000 }));
    const failure = await session.login().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApiHeld);
    expect(failure).toMatchObject({ heldMs: 4000, kind: 'retryable', statusCode: undefined });
    expect(calls).toEqual([]);
  });

  it('lets a call through and reports its answer back', async () => {
    const settled: (number | undefined)[] = [];
    const { session, calls } = gated(() => ({ go: true, settle: (status) => settled.push(status), cancel: () => undefined }));
    await expect(session.getLetter('no-such-letter')).rejects.toMatchObject({ statusCode: 404 });
    expect(settled.at(0)).toBe(200); // the login
    expect(settled.at(-1)).toBe(404);
    expect(calls).toHaveLength(settled.length); // one answer reported per call made
  });

  it('reports a call we stopped ourselves as cancelled, not as an answer', async () => {
    const events: string[] = [];
    const { session } = gated(() => ({
      go: true,
      settle: (s) => events.push(`settle ${s ?? 'none'}`),
      cancel: () => events.push('cancel'),
    }));
    await session.login();
    sandbox.store.holds.add({ method: 'GET', path: '/api/v1/letters/held', phase: 'before', count: 1 });
    const stop = new AbortController();
    const read = session.getLetter('held', { signal: stop.signal }).catch((err: unknown) => err);
    await sandbox.store.holds.waitForHeld(1);
    stop.abort(new Error('shutting down'));
    expect(await read).toMatchObject({ message: 'shutting down' });
    sandbox.store.holds.release();
    // The session's own calls (a login, a refresh on the sandbox's clock) answered; the stopped read only cancelled.
    expect(events.at(-1)).toBe('cancel');
    expect(events.slice(0, -1).every((e) => e === 'settle 200')).toBe(true);
  });
});
