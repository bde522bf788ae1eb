// A stalled Redis (SIGSTOP: the connection stays open, nothing is answered) under the admin
// area: every admin page and the queue dashboard's own JSON API answer within 2 s, with a 503
// that says Redis is not answering and since when, and work again within seconds of Redis
// answering. (/readyz and SMTP have their own bounds, tested elsewhere.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { type OpsPart, startOpsPart } from '../../src/runtime/ops-part.js';
import { randomPrefix, standaloneTopology } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';

const PASSWORD = 'stall-password';
const AUTH = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
const PAGES = [
  ['/admin/intakes', 'text/html'],
  ['/admin/intakes?state=failed', 'text/html'],
  ['/admin/intakes/refused', 'text/html'],
  ['/admin/intakes/in000000000000000000000000', 'text/html'],
  ['/admin/queues', 'text/html'],
  ['/admin/queues/api/queues', 'application/json'],
] as const;

let redis: RedisServer;
let ops: OpsPart;

beforeAll(async () => {
  redis = await startRedisServer();
  const config = loadConfig({
    REDIS_URL: redis.url,
    REDIS_PREFIX: randomPrefix(),
    OPS_HTTP_HOST: '127.0.0.1',
    OPS_HTTP_PORT: '0',
    DASHBOARD_PASSWORD: PASSWORD,
    LOG_LEVEL: 'silent',
  });
  ops = await startOpsPart({ config, env: {}, logger: createLogger({ level: 'silent' }), clock: Date.now }, standaloneTopology(redis.url), {
    admin: true,
  });
  ops.markStarted();
});
afterAll(async () => {
  redis.resume();
  await ops.close();
  await redis.destroy();
});

/** One request, never waiting more than 3 s (a hang shows as status 0). */
async function timedGet(path: string, accept: string): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  try {
    const response = await fetch(`${ops.url}${path}`, { headers: { ...AUTH, accept }, signal: AbortSignal.timeout(3000) });
    return { status: response.status, text: await response.text(), ms: performance.now() - started };
  } catch (err) {
    return { status: 0, text: String(err), ms: performance.now() - started };
  }
}

describe('the admin pages while Redis is stalled', () => {
  it('answer every page within 2 s with a 503 naming the stall and its start, and serve them again once Redis answers', async () => {
    for (const [path, accept] of PAGES) expect((await timedGet(path, accept)).status, path).not.toBe(503);

    const stalledAt = Date.now();
    redis.pause();
    const answers = [];
    for (const [path, accept] of PAGES) answers.push({ path, ...(await timedGet(path, accept)) });
    // a second round: pages asked while the first ones still wait on Redis
    answers.push(...(await Promise.all(PAGES.map(async ([path, accept]) => ({ path, ...(await timedGet(path, accept)) })))));
    for (const answer of answers) {
      expect(answer.status, `${answer.path}: ${answer.text.slice(0, 200)}`).toBe(503);
      expect(answer.ms, answer.path).toBeLessThan(2000);
      expect(answer.text, answer.path).toMatch(/Redis is not answering/);
      const since = /since (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z)/.exec(answer.text)?.[1];
      expect(since, answer.path).toBeDefined();
      expect(Math.abs(Date.parse(since ?? '') - stalledAt), answer.path).toBeLessThan(3000);
    }

    redis.resume();
    const resumedAt = performance.now();
    for (const [path, accept] of PAGES) {
      let status = 0;
      while (status !== 200 && status !== 404 && performance.now() - resumedAt < 5000) status = (await timedGet(path, accept)).status;
      expect(status, path).not.toBe(503);
      expect([200, 404], path).toContain(status);
    }
    expect(performance.now() - resumedAt).toBeLessThan(5000);
  });
});
