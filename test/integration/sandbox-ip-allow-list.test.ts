import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { isIpAllowed } from '../../src/sandbox/ip-allow-list.js';
import { startSandbox } from '../../src/sandbox/start.js';
import { ACME, call, field, startTestSandbox, testClock, testDirectory } from '../helpers/sandbox.js';

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
