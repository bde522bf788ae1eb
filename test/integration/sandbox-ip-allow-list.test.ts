import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { isIpAllowed } from '../../src/sandbox/ip-allow-list.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { requestFrom } from '../helpers/raw-http.js';
import { ACME, call, field, letterBody, startTestSandbox, testClock, testDirectory } from '../helpers/sandbox.js';

const LOGIN = '/api/v1/auth/login/api';
const headers = { 'x-api-client-id': ACME.apiClientId, 'x-api-client-secret': ACME.apiClientSecret };

describe('sandbox IP allow-list', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  async function sandboxAllowing(ranges: readonly string[], host = '127.0.0.1'): Promise<string> {
    const running = await startSandbox({
      directory: testDirectory({ [ACME.senderId]: ranges }),
      clock: testClock().now,
      logger: createLogger({ level: 'silent' }),
      host,
      port: 0,
    });
    closers.push(running.close);
    return running.url;
  }

  it('refuses a login from loopback when the sender allows only 10.0.0.0/8', async () => {
    const answer = await call(await sandboxAllowing(['10.0.0.0/8']), 'POST', LOGIN, { headers });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({
      status: 403,
      errorCode: 'IpAddressUnauthorized',
    });
  });

  it('admits a login from loopback when the sender allows 127.0.0.0/8', async () => {
    const answer = await call(await sandboxAllowing(['10.0.0.0/8', '127.0.0.0/8']), 'POST', LOGIN, { headers });
    expect(answer.status).toBe(200);
  });

  it('admits a login over IPv6 loopback when the sender allows ::1/128', async () => {
    const answer = await call(await sandboxAllowing(['::1/128'], '::1'), 'POST', LOGIN, { headers });
    expect(answer.status).toBe(200);
  });

  it('checks the credentials before the address, so a wrong secret from a refused address is 401', async () => {
    const answer = await call(await sandboxAllowing(['10.0.0.0/8']), 'POST', LOGIN, {
      headers: { ...headers, 'x-api-client-secret': 'wrong' },
    });
    expect(answer.status).toBe(401);
  });

  it('does not restrict a sender without allowedIps', async () => {
    const sandbox = await startTestSandbox();
    closers.push(sandbox.close);
    expect((await call(sandbox.url, 'POST', LOGIN, { headers })).status).toBe(200);
  });
});

describe('isIpAllowed', () => {
  it.each([
    ['127.0.0.1', ['127.0.0.1/32'], true],
    ['::ffff:127.0.0.1', ['127.0.0.1/32'], true],
    ['127.0.0.1', ['::ffff:127.0.0.1/128'], true],
    ['10.1.2.3', ['10.0.0.0/8'], true],
    ['11.1.2.3', ['10.0.0.0/8'], false],
    ['2001:db8::5', ['2001:db8::/32'], true],
    ['2001:db9::5', ['2001:db8::/32'], false],
    ['::1', ['127.0.0.0/8'], false],
    ['127.0.0.1', [], false],
    ['127.0.0.1', ['not-a-range/8', '127.0.0.1/33'], false],
    ['not-an-ip', ['0.0.0.0/0'], false],
  ] as const)('%s in %j is %s', (ip, ranges, allowed) => {
    expect(isIpAllowed(ip, ranges)).toBe(allowed);
  });

  it('allows every address when the sender has no allow-list', () => {
    expect(isIpAllowed('203.0.113.9', undefined)).toBe(true);
  });
});

describe('sandbox IP allow-list on every call', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });

  // The sender may call from 127.0.0.1 only; 127.0.0.2 is another loopback address, off its list.
  async function sessionFromListedAddress(): Promise<{ url: string; session: string }> {
    const running = await startSandbox({
      directory: testDirectory({ [ACME.senderId]: ['127.0.0.1/32'] }),
      clock: testClock().now,
      logger: createLogger({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
    });
    closers.push(running.close);
    const answer = await requestFrom('127.0.0.1', `${running.url}${LOGIN}`, { method: 'POST', headers });
    const session = field(answer.json, 'sessionId');
    if (typeof session !== 'string') throw new Error(`login failed: ${answer.status}`);
    return { url: running.url, session };
  }

  const refused = { status: 403, errorCode: 'IpAddressUnauthorized' };
  const outcome = (answer: { status: number; json: unknown }) => ({ status: answer.status, errorCode: field(answer.json, 'errorCode') });

  it('refuses a listing from an address off the list with a session made on it', async () => {
    const { url, session } = await sessionFromListedAddress();
    const answer = await requestFrom('127.0.0.2', `${url}/api/v1/letters`, { method: 'GET', headers: { 'x-session': session } });
    expect(outcome(answer)).toEqual(refused);
  });

  it('refuses a draft from an address off the list, and no draft is made', async () => {
    const { url, session } = await sessionFromListedAddress();
    const answer = await requestFrom('127.0.0.2', `${url}/api/v1/letters/draft`, {
      method: 'PUT',
      headers: { 'x-session': session },
      body: letterBody(),
    });
    expect(outcome(answer)).toEqual(refused);
    const mine = await requestFrom('127.0.0.1', `${url}/api/v1/letters`, { method: 'GET', headers: { 'x-session': session } });
    expect(field(mine.json, 'total')).toBe(0);
  });

  it('refuses a refresh from an address off the list', async () => {
    const { url, session } = await sessionFromListedAddress();
    const answer = await requestFrom('127.0.0.2', `${url}/api/v1/auth/refresh`, { method: 'POST', headers: { 'x-session': session } });
    expect(outcome(answer)).toEqual(refused);
  });

  it('refuses a receipt from an address off the list', async () => {
    const { url, session } = await sessionFromListedAddress();
    const answer = await requestFrom('127.0.0.2', `${url}/api/v1/receipts`, {
      method: 'POST',
      headers: { 'x-session': session },
      body: { reference: 'R-1', endUserIdpId: 'idp-subject-1', lineItems: [{ description: 'Water', unitPrice: 10 }] },
    });
    expect(outcome(answer)).toEqual(refused);
  });

  it('still serves the same session from the listed address', async () => {
    const { url, session } = await sessionFromListedAddress();
    const answer = await requestFrom('127.0.0.1', `${url}/api/v1/letters`, { method: 'GET', headers: { 'x-session': session } });
    expect(answer.status).toBe(200);
  });

  it('answers a call with no valid session 401 before it looks at the address', async () => {
    const { url } = await sessionFromListedAddress();
    const answer = await requestFrom('127.0.0.2', `${url}/api/v1/letters`, { method: 'GET', headers: { 'x-session': 'forged' } });
    expect(outcome(answer)).toEqual({ status: 401, errorCode: 'InvalidSession' });
  });
});
