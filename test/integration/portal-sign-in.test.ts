// Signing in to the sender portal over real HTTP and Redis: an unknown address is answered as a
// wrong password is (same status, same page, comparable time); guessing is refused 429 with when
// to try again, per account; the right password after the window gets in; a set-password link
// works once; a TOTP code is accepted once per step; turning TOTP on, which asks the password
// again, is throttled as a second factor is.
import { resolve } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentObserver } from '../../src/intake/observer.js';
import { createLogger } from '../../src/log.js';
import { portalKeys } from '../../src/portal/keys.js';
import { hashPassword } from '../../src/portal/passwords.js';
import { clientNetwork, PortalThrottle, THROTTLE_LIMITS } from '../../src/portal/throttle.js';
import { acceptTotp } from '../../src/portal/totp.js';
import { PortalUsers } from '../../src/portal/users.js';
import { type PortalPart, startPortalPart } from '../../src/runtime/portal-part.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { FIXTURE_DIR, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { TEST_REDIS_URL } from '../helpers/redis.js';

const ACME_ID = '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f';
const PASSWORD = 'a long enough passphrase';
let gateway: TestGateway;
let portal: PortalPart;
let users: PortalUsers;

beforeAll(async () => {
  gateway = await startTestGateway();
  portal = await startPortalPart(
    {
      config: { ...gateway.config, portal: { host: '127.0.0.1', port: 0, publicUrl: undefined } },
      logger: createLogger({ level: 'silent' }),
      clock: Date.now,
      observer: silentObserver,
      redisTopology: { kind: 'standalone', url: TEST_REDIS_URL, tls: undefined },
      rawStore: gateway.rawStore,
    },
    loadSenderDirectory(resolve(FIXTURE_DIR, 'senders.json'), {}),
    'http://127.0.0.1:9',
  );
  users = new PortalUsers(gateway.redis, portalKeys(gateway.prefix));
}, 30_000);

afterAll(async () => {
  await portal?.close();
  await gateway?.close();
});

/** A browser's first visit: the pre-session cookie and the form's CSRF token. */
async function loginForm(): Promise<{ cookie: string; csrf: string }> {
  const answer = await fetch(`${portal.url}/portal/login`);
  const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await answer.text())?.[1] ?? '';
  return { cookie, csrf };
}

async function signIn(
  email: string,
  password: string,
): Promise<{ status: number; text: string; ms: number; location: string | null; cookie: string }> {
  const { cookie, csrf } = await loginForm();
  const started = performance.now();
  const answer = await fetch(`${portal.url}/portal/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  const text = await answer.text();
  const session = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { status: answer.status, text, ms: performance.now() - started, location: answer.headers.get('location'), cookie: session };
}

describe('signing in to the portal', () => {
  it('answers an unknown address exactly as a wrong password, then throttles the account with 429 and when to retry', async () => {
    const added = await users.add(ACME_ID, 'guessed@acme.example', Date.now());
    if (!added.ok) throw new Error(added.reason);
    await users.resetPassword(added.user.userId, await hashPassword(PASSWORD));
    const wrong = await signIn('guessed@acme.example', 'not the password at all');
    const unknown = await signIn('nobody@acme.example', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const body = (t: string) => t.replace(/name="_csrf" value="[^"]+"/, '');
    expect(body(unknown.text)).toBe(body(wrong.text));
    // both ran the full password hash (a scrypt at OWASP's cost): neither is much quicker
    expect(unknown.ms).toBeGreaterThan(wrong.ms / 3);
    for (let i = 0; i < 4; i += 1) await signIn('guessed@acme.example', 'still not the password');
    const throttled = await signIn('guessed@acme.example', PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.text).toMatch(/too many attempts\. Try again in 15 minutes/);
    // never a lock-out for good: after the window the owner's password works
    await gateway.redis.del(portalKeys(gateway.prefix).throttle('account', `guessed@acme.example|${clientNetwork('127.0.0.1')}`));
    const owner = await signIn('guessed@acme.example', PASSWORD);
    expect(owner.status).toBe(303);
    expect(owner.location).toBe('/portal/intakes');
  }, 60_000);

  it('counts guesses sent at once each: no more pass than the limit, whatever the concurrency', async () => {
    const throttle = new PortalThrottle(gateway.redis, portalKeys(gateway.prefix));
    const gates = await Promise.all(Array.from({ length: 40 }, () => throttle.take([['factor', 'user-burst']])));
    expect(gates.filter((g) => g.ok)).toHaveLength(THROTTLE_LIMITS.factor.max);
  });

  it("keeps an account's count per client network: guesses from one network leave the owner's free", async () => {
    const throttle = new PortalThrottle(gateway.redis, portalKeys(gateway.prefix));
    const stranger = `owner@acme.example|${clientNetwork('203.0.113.7')}`;
    for (let i = 0; i < 10; i += 1) await throttle.take([['account', stranger]]);
    expect((await throttle.take([['account', stranger]])).ok).toBe(false);
    expect((await throttle.take([['account', `owner@acme.example|${clientNetwork('198.51.100.20')}`]])).ok).toBe(true);
  });

  it('lets a set-password link work once', async () => {
    const added = await users.add(ACME_ID, 'once@acme.example', Date.now());
    if (!added.ok) throw new Error(added.reason);
    expect((await fetch(`${portal.url}/portal/set-password?token=${added.token}`)).status).toBe(200);
    expect(await users.setPassword(added.token, 'x')).toBeDefined();
    expect((await fetch(`${portal.url}/portal/set-password?token=${added.token}`)).status).toBe(410);
    expect(await users.setPassword(added.token, 'y')).toBeUndefined();
  });

  it('accepts a TOTP code once per step', async () => {
    const secret = new Secret({ size: 20 }).base32;
    const now = Date.now();
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: now });
    const keys = portalKeys(gateway.prefix);
    expect(await acceptTotp(gateway.redis, keys, 'user-1', secret, code, now)).toBe(true);
    expect(await acceptTotp(gateway.redis, keys, 'user-1', secret, code, now)).toBe(false);
    const next = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: now + 30_000 });
    expect(await acceptTotp(gateway.redis, keys, 'user-1', secret, next, now + 30_000)).toBe(true);
  });

  it("throttles the two-factor set-up's password and code check as a sign-in's code: 429 past the limit, the right pair too", async () => {
    const added = await users.add(ACME_ID, 'setup@acme.example', Date.now());
    if (!added.ok) throw new Error(added.reason);
    await users.resetPassword(added.user.userId, await hashPassword(PASSWORD));
    const { cookie, status } = await signIn('setup@acme.example', PASSWORD);
    expect(status).toBe(303);
    const setupPage = await (await fetch(`${portal.url}/portal/security/totp`, { headers: { cookie } })).text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(setupPage)?.[1] ?? '';
    const secret = /secret=([A-Z2-7]+)/.exec(setupPage)?.[1] ?? '';
    expect(secret).not.toBe('');
    const tryPair = async (password: string) => {
      const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() });
      const answer = await fetch(`${portal.url}/portal/security/totp`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, password, code }).toString(),
      });
      return { status: answer.status, text: await answer.text() };
    };
    for (let i = 0; i < THROTTLE_LIMITS.factor.max; i += 1) expect((await tryPair(`guess number ${i}`)).status).toBe(400);
    const throttled = await tryPair(PASSWORD);
    expect(throttled.status).toBe(429);
    expect(throttled.text).toMatch(/too many attempts\. Try again in 15 minutes/);
    // after the window the owner's pair works
    await gateway.redis.del(portalKeys(gateway.prefix).throttle('factor', added.user.userId));
    expect((await tryPair(PASSWORD)).status).toBe(200);
  }, 60_000);
});
