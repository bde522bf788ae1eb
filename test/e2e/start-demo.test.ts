// `letter-intake start` on demo defaults, as a real process: the admin pages (password "demo")
// and the sandbox API listen on loopback only; an operator's explicit OPS_HTTP_HOST still counts.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix, TEST_REDIS_URL } from '../helpers/redis.js';

const prefix = randomPrefix();
const dataDir = mkdtempSync(join(tmpdir(), 'letter-intake-demo-'));
const running: RoleProcess[] = [];

afterAll(async () => {
  for (const proc of running) await proc.stop();
  const redis = connectTestRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Demo defaults: no SENDERS_FILE, no INBOUND_ADDRESSES; Redis is the tests' own. */
async function startDemo(extra: Record<string, string> = {}): Promise<RoleProcess> {
  const proc = await startRole('start', {
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: prefix,
    DATA_DIR: dataDir,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: '0',
    OPS_HTTP_PORT: '0',
    PORTAL_PORT: '0',
    SANDBOX_PORT: '0',
    LOG_LEVEL: 'info',
    ...extra,
  });
  running.push(proc);
  return proc;
}

/** The addresses the ops HTTP server said it listens at (fastify logs one line per address). */
function opsAddresses(proc: RoleProcess): string[] {
  return proc.logs
    .filter((l) => l.component === 'ops-http' && typeof l.msg === 'string' && l.msg.startsWith('Server listening at '))
    .map((l) => new URL(String(l.msg).slice('Server listening at '.length)).hostname);
}

/** This machine's own non-loopback IPv4 address, if it has one. */
const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

describe('letter-intake start on demo defaults', () => {
  it('serves the admin pages and the sandbox API on loopback only', async () => {
    const proc = await startDemo();
    const ready = await proc.waitForLog((l) => l.event === 'start.ready');
    const ops = new URL(String(ready.ops));
    const api = new URL(String(ready.senderApi));

    expect([ops.hostname, api.hostname]).toEqual(['127.0.0.1', '127.0.0.1']);
    expect(opsAddresses(proc)).toEqual(['127.0.0.1']);
    const admin = await fetch(`${ops.origin}/admin/intakes?format=json`, {
      headers: { authorization: `Basic ${Buffer.from('admin:demo').toString('base64')}` },
    });
    expect(admin.status).toBe(200);
    if (ownAddress !== undefined) {
      expect(await canConnect(ownAddress, Number(ops.port))).toBe(false);
      expect(await canConnect(ownAddress, Number(api.port))).toBe(false);
    }
  });

  it('prints a portal user of the demo sender with its password, and the portal takes it (on loopback)', async () => {
    const proc = await startDemo();
    const ready = await proc.waitForLog((l) => l.event === 'start.ready');
    const portal = new URL(String(ready.portal));
    expect(portal.hostname).toBe('127.0.0.1');
    await expect.poll(() => proc.text(), { timeout: 10_000 }).toMatch(/\(user portal@acme\.example, password \S+\)/);
    const password = /\(user portal@acme\.example, password (\S+)\)/.exec(proc.text())?.[1] ?? '';
    const form = await fetch(`${portal.origin}/portal/login`);
    const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const signIn = await fetch(`${portal.origin}/portal/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: 'portal@acme.example', password }).toString(),
    });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe('/portal/intakes');
  });

  it.skipIf(ownAddress === undefined)('listens on every interface when OPS_HTTP_HOST says so', async () => {
    const proc = await startDemo({ OPS_HTTP_HOST: '0.0.0.0' });
    const ready = await proc.waitForLog((l) => l.event === 'start.ready');
    const ops = new URL(String(ready.ops));

    expect(opsAddresses(proc)).toContain(ownAddress);
    expect(await canConnect(ownAddress ?? '', Number(ops.port))).toBe(true);
  });
});
