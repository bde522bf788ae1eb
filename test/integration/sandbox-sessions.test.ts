import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, call, field, login, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const MINUTE = 60_000;

describe('sandbox sessions', () => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
  });
  afterEach(async () => {
    await sandbox.close();
  });

  const list = (session?: string) => call(sandbox.url, 'GET', '/api/v1/letters', session === undefined ? {} : { session });
  const refresh = (session: string) => call(sandbox.url, 'POST', '/api/v1/auth/refresh', { session });

  it('accepts a session until just before 30 minutes have passed', async () => {
    const session = await login(sandbox.url, ACME);
    sandbox.clock.advance(30 * MINUTE - 1);
    expect((await list(session)).status).toBe(200);
  });

  it('refuses a session once 30 minutes have passed with 401 InvalidSession', async () => {
    const session = await login(sandbox.url, ACME);
    sandbox.clock.advance(30 * MINUTE);
    const answer = await list(session);
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });

  it('refuses a call without X-Session with 401 InvalidSession', async () => {
    const answer = await list();
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });

  it('refuses an unknown X-Session with 401 InvalidSession', async () => {
    const answer = await list('00000000-0000-4000-8000-000000000000');
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });

  it('refreshes a session into a new one valid for 30 minutes from now', async () => {
    const session = await login(sandbox.url, ACME);
    sandbox.clock.advance(20 * MINUTE);
    const answer = await refresh(session);
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      sessionId: expect.not.stringMatching(session),
      senderId: ACME.senderId,
      validUntilUtc: new Date(sandbox.clock.now() + 30 * MINUTE).toISOString(),
      isValid: true,
    });
  });

  it('lets the new session outlive the old one', async () => {
    const old = await login(sandbox.url, ACME);
    sandbox.clock.advance(20 * MINUTE);
    const fresh = field((await refresh(old)).json, 'sessionId');
    sandbox.clock.advance(15 * MINUTE);
    expect(typeof fresh).toBe('string');
    expect((await list(String(fresh))).status).toBe(200);
  });

  it('keeps the old session valid after a refresh, until its own expiry', async () => {
    const old = await login(sandbox.url, ACME);
    sandbox.clock.advance(20 * MINUTE);
    await refresh(old);
    expect((await list(old)).status).toBe(200);
    sandbox.clock.advance(10 * MINUTE);
    expect((await list(old)).status).toBe(401);
  });

  it('refuses to refresh an expired session', async () => {
    const session = await login(sandbox.url, ACME);
    sandbox.clock.advance(31 * MINUTE);
    const answer = await refresh(session);
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });

  it('refuses every session after the store forgot them, as after a restart', async () => {
    const session = await login(sandbox.url, ACME);
    sandbox.store.forgetSessions();
    expect((await list(session)).status).toBe(401);
  });

  it('forgets every session on DELETE /sandbox/sessions', async () => {
    const session = await login(sandbox.url, ACME);
    expect((await call(sandbox.url, 'DELETE', '/sandbox/sessions')).status).toBe(204);
    expect((await list(session)).status).toBe(401);
  });
});
