// `letter-intake replay-failed` as an operator runs it: compiled, in its own process, against
// real Redis; only the failed intakes its options match go back to the queue.
import { afterAll, describe, expect, it } from 'vitest';
import { IntakeStore } from '../../src/intake/store.js';
import { testEnv } from '../helpers/gateway.js';
import { runCommand } from '../helpers/processes.js';
import { UNREAD_BLOB } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const prefix = randomPrefix();
const redis = connectTestRedis();
const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 60_000 });
afterAll(async () => {
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

async function failed(id: string, errorCode: string, at: number): Promise<void> {
  const intake = { intakeId: id, receivedAt: at, envelopeFrom: '', envelopeTo: [], clientIp: '', helo: '', from: 'letters@acme.example' };
  await store.create({ ...intake, subject: 's', messageId: '', sizeBytes: 1, auth: {} }, { headers: '', body: UNREAD_BLOB }, at);
  await store.transition(id, ['received'], 'queued', at);
  await store.transition(id, ['queued'], 'processing', at);
  await store.transition(id, ['processing'], 'failed', at, { errorCode, reason: 'r' });
}

describe('letter-intake replay-failed', () => {
  it('re-queues the failed intakes with the error code in the time range, prints them, and leaves the rest', async () => {
    const at = Date.UTC(2026, 10, 25, 12, 0, 0);
    await failed('inreplaycli00000000000001', 'HTTP503', at);
    await failed('inreplaycli00000000000002', 'InvalidCredentials', at);
    await failed('inreplaycli00000000000003', 'HTTP503', at - 24 * 3600_000);
    const env = testEnv(prefix);
    const run = await runCommand(['replay-failed', '--error-code', 'HTTP503', '--since', '2026-11-25T00:00:00Z'], env);
    expect(run.text).toContain('intake inreplaycli00000000000001 queued again');
    expect(run.text).toContain('1 queued again, 0 refused');
    expect(run.code).toBe(0);
    const states = await Promise.all(['1', '2', '3'].map(async (n) => (await store.get(`inreplaycli0000000000000${n}`))?.state));
    expect(states).toEqual(['queued', 'failed', 'failed']);

    const bad = await runCommand(['replay-failed', '--until', 'tomorrow'], env);
    expect(bad.code).toBe(64);
    expect(bad.text).toContain('until: not a time');
  });
});
