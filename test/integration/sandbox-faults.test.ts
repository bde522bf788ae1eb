import { describe, expect, it } from 'vitest';
import { ACME, call, field, login, sandboxEachTest, type TestSandbox } from '../helpers/sandbox.js';

describe('sandbox fault injection', () => {
  let sandbox: TestSandbox;
  let session: string;
  sandboxEachTest((started, loggedIn) => {
    sandbox = started;
    session = loggedIn;
  });

  const inject = (fault: unknown) => call(sandbox.url, 'POST', '/sandbox/faults', { body: fault });
  const list = async () => (await call(sandbox.url, 'GET', '/api/v1/letters', { session })).status;

  it('answers the next N calls with the injected status, then serves again', async () => {
    await inject({ status: 503, count: 2 });
    expect([await list(), await list(), await list()]).toEqual([503, 503, 200]);
  });

  it('answers an injected 500 with UnexpectedError', async () => {
    await inject({ status: 500 });
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters', { session });
    expect(field(answer.json, 'errorCode')).toBe('UnexpectedError');
  });

  it('sends Retry-After with an injected 429', async () => {
    await inject({ status: 429, retryAfterSeconds: 7 });
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters', { session });
    expect({ status: answer.status, retryAfter: answer.headers.get('retry-after'), errorCode: field(answer.json, 'errorCode') }).toEqual({
      status: 429,
      retryAfter: '7',
      errorCode: 'TooManyRequests',
    });
  });

  it('uses the injected errorCode', async () => {
    await inject({ status: 502, errorCode: 'BadGateway' });
    expect(field((await call(sandbox.url, 'GET', '/api/v1/letters', { session })).json, 'errorCode')).toBe('BadGateway');
  });

  it('affects only calls under the given path prefix', async () => {
    await inject({ status: 503, paths: '/api/v1/letters/submit' });
    expect(await list()).toBe(200);
    const submit = await call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body: {} });
    expect(submit.status).toBe(503);
  });

  it('hits logins too', async () => {
    await inject({ status: 503 });
    await expect(login(sandbox.url, ACME)).rejects.toThrow(/503/);
  });

  it('leaves the /sandbox routes alone', async () => {
    await inject({ status: 503 });
    expect((await call(sandbox.url, 'GET', '/sandbox/letters')).status).toBe(200);
    expect(await list()).toBe(503);
  });

  it('forgets every pending fault on DELETE /sandbox/faults', async () => {
    await inject({ status: 503, count: 5 });
    expect((await call(sandbox.url, 'DELETE', '/sandbox/faults')).status).toBe(204);
    expect(await list()).toBe(200);
  });

  it('refuses a fault with a status that is not an error', async () => {
    const answer = await inject({ status: 200 });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 400, errorCode: 'InvalidData' });
  });

  it('offers the same control on the store for in-process tests', async () => {
    sandbox.store.injectFault({ status: 503, count: 1 });
    expect([await list(), await list()]).toEqual([503, 200]);
  });
});
