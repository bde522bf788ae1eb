import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, call, field, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const LOGIN = '/api/v1/auth/login/api';
const credentialHeaders = { 'x-api-client-id': ACME.apiClientId, 'x-api-client-secret': ACME.apiClientSecret };

describe('sandbox login', () => {
  let sandbox: TestSandbox;
  beforeEach(async () => {
    sandbox = await startTestSandbox();
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('logs in with the credentials in headers and no body, for 30 minutes', async () => {
    const answer = await call(sandbox.url, 'POST', LOGIN, { headers: credentialHeaders });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      senderId: ACME.senderId,
      validUntilUtc: new Date(sandbox.clock.now() + 30 * 60_000).toISOString(),
      isValid: true,
    });
  });

  it('logs in with the credentials in a JSON body and no credential headers', async () => {
    const answer = await call(sandbox.url, 'POST', LOGIN, {
      body: { apiClientId: ACME.apiClientId, apiClientSecret: ACME.apiClientSecret },
    });
    expect(answer.status).toBe(200);
    expect(field(answer.json, 'senderId')).toBe(ACME.senderId);
  });

  it('treats a JSON content type with an empty body as no body', async () => {
    const answer = await call(sandbox.url, 'POST', LOGIN, { headers: { ...credentialHeaders, 'content-type': 'application/json' } });
    expect(answer.status).toBe(200);
  });

  it('refuses credential headers together with a body as InvalidData', async () => {
    const answer = await call(sandbox.url, 'POST', LOGIN, {
      headers: credentialHeaders,
      body: { apiClientId: ACME.apiClientId, apiClientSecret: ACME.apiClientSecret },
    });
    expect(answer.status).toBe(400);
    expect(field(answer.json, 'errorCode')).toBe('InvalidData');
  });

  it('refuses credential headers together with a chunked body as InvalidData', async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpRequest(`${sandbox.url}${LOGIN}`, {
        method: 'POST',
        headers: { ...credentialHeaders, 'transfer-encoding': 'chunked', 'content-type': 'application/json' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(400);
  });

  it.each([
    ['the client id header is missing', { 'x-api-client-secret': ACME.apiClientSecret }, undefined, 'ApiClientIdRequired', 400],
    ['the body has no client id', {}, { apiClientSecret: ACME.apiClientSecret }, 'ApiClientIdRequired', 400],
    ['there are neither headers nor body', {}, undefined, 'ApiClientIdRequired', 400],
    ['the client secret header is missing', { 'x-api-client-id': ACME.apiClientId }, undefined, 'ApiClientSecretRequired', 400],
    ['the body has no client secret', {}, { apiClientId: ACME.apiClientId }, 'ApiClientSecretRequired', 400],
    ['the secret is wrong', { ...credentialHeaders, 'x-api-client-secret': 'not-the-secret' }, undefined, 'InvalidCredentials', 401],
    ['the client id is unknown', { ...credentialHeaders, 'x-api-client-id': 'nobody' }, undefined, 'InvalidCredentials', 401],
  ] as const)('answers %s with %s', async (_case, headers, body, errorCode, status) => {
    const answer = await call(sandbox.url, 'POST', LOGIN, { headers, ...(body === undefined ? {} : { body }) });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status, errorCode });
  });

  it('counts each successful login in the store', async () => {
    await call(sandbox.url, 'POST', LOGIN, { headers: credentialHeaders });
    await call(sandbox.url, 'POST', LOGIN, { headers: { ...credentialHeaders, 'x-api-client-secret': 'wrong' } });
    expect(sandbox.store.sessionCounts(ACME.senderId)).toEqual({ logins: 1, refreshes: 0 });
  });
});
