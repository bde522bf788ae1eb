// Redis stopped under running roles: the admin pages answer a clear 503 within a second instead
// of hanging on a connection that waits for Redis, and the queue's and workers' error events are
// logged like the connection's own (once when the outage starts, then at most every 30 s), not
// once per reconnect attempt with a stack each.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { type OpsPart, startOpsPart } from '../../src/runtime/ops-part.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { standaloneTopology } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const PASSWORD = 'outage-password';
const AUTH = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
let redis: RedisServer;
let gateway: TestGateway;
let ops: OpsPart;
const opsLogs: Record<string, unknown>[] = [];

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await startTestGateway({ worker: true, env: { REDIS_URL: redis.url } });
  const config = loadConfig({
    REDIS_URL: redis.url,
    REDIS_PREFIX: gateway.prefix,
    OPS_HTTP_HOST: '127.0.0.1',
    OPS_HTTP_PORT: '0',
    DASHBOARD_PASSWORD: PASSWORD,
  });
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') opsLogs.push(JSON.parse(line));
      done();
    },
  });
  ops = await startOpsPart(
    { config, env: {}, logger: createLogger({ level: 'info', destination }), clock: Date.now },
    standaloneTopology(redis.url),
    {
      admin: true,
    },
  );
  ops.markStarted();
});
afterAll(async () => {
  await ops.close();
  await gateway.close();
  await redis.destroy();
});

async function timedGet(path: string): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const response = await fetch(`${ops.url}${path}`, {
    headers: { ...AUTH, accept: 'text/html' },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, text: await response.text(), ms: performance.now() - started };
}

/** The intake list's status once the connection is back (polled, as an operator reloads the page). */
async function statusOnceRedisIsUp(): Promise<number> {
  let status = 0;
  for (let i = 0; i < 80 && status !== 200; i += 1) {
    status = (await timedGet('/admin/intakes')).status;
    if (status !== 200) await new Promise((r) => setTimeout(r, 250));
  }
  return status;
}

describe('a Redis outage under running roles', () => {
  it('logs the queue and worker errors of every role once for the outage, not once per reconnect attempt', async () => {
    const events = [
      'smtp.queue_error',
      'worker.queue_error',
      'worker.error',
      'notices.worker_error',
      'notices.queue_error',
      'ops.queue_error',
    ];
    const count = (event: string) => [...gateway.logs, ...opsLogs].filter((l) => l.event === event).length;
    const before = Object.fromEntries(events.map((e) => [e, count(e)]));
    await redis.kill();
    await new Promise((r) => setTimeout(r, 5000)); // ioredis retries every 0.2–2 s meanwhile
    const during = Object.fromEntries(events.map((e) => [e, count(e) - (before[e] ?? 0)]));
    for (const event of events) expect(during[event], event).toBeLessThanOrEqual(1);
    expect(Object.values(during).reduce((a, b) => a + b, 0)).toBeGreaterThan(0); // the outage was seen
    await redis.restart();
  });

  it('answers the admin pages with a clear 503 within a second, and serves them again once Redis is back', async () => {
    expect(await statusOnceRedisIsUp()).toBe(200);
    await redis.kill();
    for (const path of [
      '/admin/intakes',
      '/admin/intakes?state=failed',
      '/admin/intakes/in000000000000000000000000',
      '/admin/queues/api/queues',
    ]) {
      const answer = await timedGet(path).catch((err: unknown) => ({ status: 0, ms: 10_000, text: String(err) }));
      expect(answer.status, path).toBe(503);
      expect(answer.ms, path).toBeLessThan(1000);
      expect(answer.text, path).toMatch(/Redis/);
    }
    await redis.restart();
    expect(await statusOnceRedisIsUp()).toBe(200);
  });
});
