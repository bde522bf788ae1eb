// Redis stopped in the middle of a run: the listener answers 451 4.3.0 within its bound (never
// 250, never a hang), stores nothing half-way, and accepts again on its own once Redis returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const ENQUEUE_TIMEOUT_MS = 1500;
let redis: RedisServer;
let gateway: TestGateway;

beforeAll(async () => {
  redis = await startRedisServer();
  gateway = await startTestGateway({ env: { REDIS_URL: redis.url, ENQUEUE_TIMEOUT_MS: String(ENQUEUE_TIMEOUT_MS) } });
});
afterAll(async () => {
  await gateway.close();
  await redis.destroy();
});

const deliver = async (title: string) =>
  (await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw: await signedLetter({ title }) })).data;

describe('a Redis outage', () => {
  it('is answered 451 4.3.0 within the bound while Redis is down, and 250 again after it returns', async () => {
    expect((await deliver('before the outage'))?.code).toBe(250);

    await redis.kill();
    const started = Date.now();
    const during = await deliver('during the outage');
    expect(during?.text).toMatch(/^451 4\.3\.0 /);
    expect(Date.now() - started).toBeLessThan(ENQUEUE_TIMEOUT_MS + 3000);

    await redis.restart();
    let after = await deliver('after the outage');
    for (let i = 0; i < 40 && after?.code !== 250; i += 1) {
      await new Promise((r) => setTimeout(r, 250)); // the sender's MTA retrying
      after = await deliver('after the outage');
    }
    expect(after?.text).toMatch(/^250 2\.0\.0 queued as /);
    const records = await gateway.store.list('queued', 1000);
    expect(records.map((r) => r.subject).sort()).toEqual(['after the outage', 'before the outage']);
  });

  it('logs the lost connection at warn with the error, not once per reconnect attempt, and its recovery', async () => {
    const outage = (event: string) => gateway.logs.filter((l) => l.event === event);
    const errorsBefore = outage('smtp.redis_error').length;
    await redis.kill();
    for (let i = 0; i < 100 && outage('smtp.redis_error').length === errorsBefore; i += 1) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 3000)); // ioredis keeps retrying meanwhile
    const logged = outage('smtp.redis_error').slice(errorsBefore);
    expect(logged.map((l) => l.level)).toEqual([40]);
    expect(JSON.stringify(logged[0]?.err)).toMatch(/ECONNREFUSED|Connection is closed|ECONNRESET/);

    await redis.restart();
    for (let i = 0; i < 100 && outage('smtp.redis_error_recovered').length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    expect(outage('smtp.redis_error_recovered').at(-1)?.failures).toBeGreaterThan(0);
  });
});
