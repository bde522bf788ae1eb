// Guessing the admin password over HTTP: behind a trusted proxy each client address gets a
// bounded number of failures and then 429 (the proxy itself is never locked out); without trusted
// proxies every attempt under a user name with recent failures waits longer, and the right login
// still gets in.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
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

async function start(options: {
  trustedProxies: readonly string[];
  waits?: number[];
  loginDelay?: (ms: number) => Promise<void>;
  clock?: () => number;
}): Promise<OpsServer> {
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
    ...(options.loginDelay === undefined ? {} : { loginDelay: options.loginDelay }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  servers.push(server);
  return server;
}

const attempt = (server: OpsServer, password: string, forwardedFor?: string, user = USER) =>
  fetch(`${server.url}/admin/queues/api/queues`, {
    headers: { authorization: basic(user, password), ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }) },
  });

describe('failed admin logins behind a trusted proxy (OPS_HTTP_TRUSTED_PROXIES)', () => {
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

describe('failed admin logins without trusted proxies, made in parallel', () => {
  it('checks 20 wrong logins fired at once one after another, each waiting its turn, answers 429 to those past the few that may wait, and still lets the right login in', async () => {
    // the clock stands still and every wait is held until released: what each attempt was told
    // to wait is when it would be checked, counted from the same instant
    const held: { ms: number; release: () => void }[] = [];
    const server = await start({
      trustedProxies: [],
      clock: () => Date.UTC(2026, 10, 25, 12, 0, 0),
      loginDelay: (ms) => new Promise<void>((release) => held.push({ ms, release })),
    });
    let answered = 0;
    const answers = Array.from({ length: 20 }, async (_, i) => {
      const response = await attempt(server, `guess-${i}`);
      answered += 1;
      return response;
    });
    try {
      await vi.waitFor(() => expect(answered + held.length).toBe(20));
      // 3 free failures, then 4 that may wait, checked 250 ms, 500 ms, 1 s and 2 s after each
      // other: as if they had come one after another
      expect(held.map((h) => h.ms)).toEqual([250, 750, 1750, 3750]);
    } finally {
      for (const h of held) h.release();
    }
    const responses = await Promise.all(answers);
    expect(responses.filter((r) => r.status === 401)).toHaveLength(7);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(13);
    for (const r of limited) expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    // never a lock-out: once the turns are over, the right login waits its own turn and gets in
    const right = attempt(server, PASSWORD);
    await vi.waitFor(() => expect(held).toHaveLength(5));
    expect(held[4]?.ms).toBe(4000);
    held[4]?.release();
    expect((await right).status).toBe(200);
  });
});
