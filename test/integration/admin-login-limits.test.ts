// Guessing the admin password over HTTP: behind a trusted proxy each client address gets a
// bounded number of failures and then 429 (the proxy itself is never locked out); without trusted
// proxies every attempt under a user name with recent failures waits longer, and the right login
// still gets in.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createIntakeQueue } from '../../src/intake/queue.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { connectTestRedis, randomPrefix } from '../helpers/redis.js';

const USER = 'admin';
const PASSWORD = `pw-${randomUUID()}`;
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

const servers: OpsServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
// the dashboard's routes stand for the whole admin area (a queue of its own; nothing is queued)
const redis = connectTestRedis();
const queue = createIntakeQueue(redis, randomPrefix());
afterAll(async () => {
  await queue.close();
  redis.disconnect();
});

async function start(options: { trustedProxies: readonly string[]; waits?: number[] }): Promise<OpsServer> {
  const waits = options.waits;
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent', destination: new Writable({ write: (_c, _e, done) => done() }) }),
    registry: createMetrics().registry,
    queue,
    dashboard: { user: USER, password: PASSWORD },
    trustedProxies: options.trustedProxies,
    ...(waits === undefined ? {} : { loginDelay: async (ms: number) => void waits.push(ms) }),
  });
  servers.push(server);
  return server;
}

const attempt = (server: OpsServer, password: string, forwardedFor?: string, user = USER) =>
  fetch(`${server.url}/admin/queues/api/queues`, {
    headers: { authorization: basic(user, password), ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
  });

describe('failed admin logins behind a trusted proxy (HTTP_TRUSTED_PROXIES)', () => {
  it('refuses a client address with 429 after 10 failures, and no other address', async () => {
    const server = await start({ trustedProxies: ['127.0.0.1'] });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await attempt(server, `guess-${i}`, '203.0.113.5')).status);
    expect(statuses).toEqual([...Array.from({ length: 10 }, () => 401), 429]);
    const locked = await attempt(server, PASSWORD, '203.0.113.5');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // the proxy forwards other admins: their address is their own
    expect((await attempt(server, 'a typo', '198.51.100.9')).status).toBe(401);
    expect((await attempt(server, PASSWORD, '198.51.100.9')).status).not.toBe(401);
    expect((await attempt(server, PASSWORD, '198.51.100.9')).status).not.toBe(429);
  });
});

describe('failed admin logins without trusted proxies', () => {
  it('makes each further attempt under the user name wait longer, whatever X-Forwarded-For says, and never locks out', async () => {
    const waits: number[] = [];
    const server = await start({ trustedProxies: [], waits });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) statuses.push((await attempt(server, `guess-${i}`, `192.0.2.${i}`)).status);
    expect(statuses).toEqual(Array.from({ length: 8 }, () => 401));
    expect(waits).toEqual([250, 500, 1000, 2000, 4000]); // the first three failures are free
    const right = await attempt(server, PASSWORD, '192.0.2.200');
    expect(right.status).not.toBe(401);
    expect(right.status).not.toBe(429);
    expect(waits.at(-1)).toBe(8000); // the right login waited too: the delay says nothing of the password
  });
});
