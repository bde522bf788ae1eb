import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SenderApiClientDeps } from '../../src/sender-api/client.js';
import { SenderApiError } from '../../src/sender-api/errors.js';
import { ACME, GLOBEX, sandboxClient, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const MINUTE = 60_000;

describe('Sender API client sessions', () => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const client = (extra: Partial<SenderApiClientDeps> = {}) => sandboxClient(sandbox, extra);
  const counts = (senderId: string = ACME.senderId) => sandbox.store.sessionCounts(senderId);

  it('logs in once for many calls', async () => {
    const acme = client().as(ACME);
    for (let i = 0; i < 5; i += 1) await acme.listLetters();
    expect(counts()).toEqual({ logins: 1, refreshes: 0 });
  });

  it('shares one login among concurrent calls', async () => {
    const acme = client().as(ACME);
    await Promise.all(Array.from({ length: 10 }, () => acme.listLetters()));
    expect(counts().logins).toBe(1);
  });

  it('gives the same handle, and so the same session, for the same sender', async () => {
    const api = client();
    await api.as({ ...ACME }).listLetters();
    await api.as({ ...ACME }).listLetters();
    expect(counts().logins).toBe(1);
  });

  it('keeps one session per sender', async () => {
    const api = client();
    await api.as(ACME).listLetters();
    await api.as(GLOBEX).listLetters();
    expect([counts(ACME.senderId).logins, counts(GLOBEX.senderId).logins]).toEqual([1, 1]);
  });

  it('logs in with the credential headers and no body at all', async () => {
    const seen: Array<{ url: string; body: unknown; hasClientId: boolean }> = [];
    const recording: typeof fetch = (input, init) => {
      seen.push({ url: String(input), body: init?.body, hasClientId: new Headers(init?.headers).has('x-api-client-id') });
      return fetch(input, init);
    };
    await client({ fetch: recording }).as(ACME).login();
    expect(seen).toEqual([{ url: `${sandbox.url}/api/v1/auth/login/api`, body: undefined, hasClientId: true }]);
  });

  it('refreshes the session once it is inside the safety margin before expiry', async () => {
    const acme = client().as(ACME);
    await acme.listLetters();
    sandbox.clock.advance(29 * MINUTE + 30_000);
    await acme.listLetters();
    expect(counts()).toEqual({ logins: 1, refreshes: 1 });
  });

  it('does not refresh before the safety margin', async () => {
    const acme = client().as(ACME);
    await acme.listLetters();
    sandbox.clock.advance(28 * MINUTE);
    await acme.listLetters();
    expect(counts().refreshes).toBe(0);
  });

  it('honours a wider safety margin', async () => {
    const acme = client({ refreshMarginMs: 5 * MINUTE }).as(ACME);
    await acme.listLetters();
    sandbox.clock.advance(26 * MINUTE);
    await acme.listLetters();
    expect(counts().refreshes).toBe(1);
  });

  it('logs in again when the cached session has expired', async () => {
    const acme = client().as(ACME);
    await acme.listLetters();
    sandbox.clock.advance(31 * MINUTE);
    await acme.listLetters();
    expect(counts()).toEqual({ logins: 2, refreshes: 0 });
  });

  it('logs in again once and retries when the API answers InvalidSession', async () => {
    const acme = client().as(ACME);
    await acme.listLetters();
    sandbox.store.forgetSessions();
    const page = await acme.listLetters();
    expect({ total: page?.total, logins: counts().logins }).toEqual({ total: 0, logins: 2 });
  });

  it('gives up with a retryable error when the fresh session is refused too', async () => {
    const acme = client().as(ACME);
    await acme.login();
    sandbox.store.injectFault({ status: 401, errorCode: 'InvalidSession', count: 2, paths: '/api/v1/letters' });
    const failure = await acme.listLetters().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SenderApiError);
    expect(failure).toMatchObject({ errorCode: 'InvalidSession', kind: 'retryable' });
    expect(counts().logins).toBe(2);
  });

  it('keeps using a still-valid session when the refresh fails', async () => {
    const acme = client().as(ACME);
    await acme.listLetters();
    sandbox.clock.advance(29 * MINUTE + 30_000);
    sandbox.store.injectFault({ status: 503, paths: '/api/v1/auth/refresh' });
    await acme.listLetters();
    expect(counts()).toEqual({ logins: 1, refreshes: 0 });
  });

  it('refreshes on request into a session that ends 30 minutes from now', async () => {
    const acme = client().as(ACME);
    await acme.login();
    sandbox.clock.advance(10 * MINUTE);
    const session = await acme.refresh();
    expect(session.endsAtMs).toBe(sandbox.clock.now() + 30 * MINUTE);
  });
});
