import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { startSandbox } from '../../src/sandbox/start.js';
import type { SenderDirectory } from '../../src/senders/directory.js';
import {
  ACME,
  type ApiAnswer,
  call,
  field,
  GLOBEX,
  letterBody,
  sandboxEachTest,
  type TestSandbox,
  testClock,
  testDirectory,
} from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectEnvelope(answer: ApiAnswer, status: number, errorCode: string): void {
  expect(answer.status).toBe(status);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.json).toEqual({
    message: expect.stringMatching(/\S/),
    statusCode: status,
    errorCode,
    traceId: expect.stringMatching(UUID),
  });
}

describe('sandbox error envelope', () => {
  let sandbox: TestSandbox;
  let session: string;
  sandboxEachTest(
    (started, loggedIn) => {
      sandbox = started;
      session = loggedIn;
    },
    { directory: testDirectory({ [GLOBEX.senderId]: ['10.0.0.0/8'] }) },
  );

  const loginWith = (headers: Record<string, string>) => call(sandbox.url, 'POST', '/api/v1/auth/login/api', { headers });

  it('wraps ApiClientIdRequired', async () => {
    expectEnvelope(await loginWith({}), 400, 'ApiClientIdRequired');
  });

  it('wraps ApiClientSecretRequired', async () => {
    expectEnvelope(await loginWith({ 'x-api-client-id': ACME.apiClientId }), 400, 'ApiClientSecretRequired');
  });

  it('wraps InvalidCredentials', async () => {
    expectEnvelope(await loginWith({ 'x-api-client-id': ACME.apiClientId, 'x-api-client-secret': 'nope' }), 401, 'InvalidCredentials');
  });

  it('wraps IpAddressUnauthorized', async () => {
    expectEnvelope(
      await loginWith({ 'x-api-client-id': GLOBEX.apiClientId, 'x-api-client-secret': GLOBEX.apiClientSecret }),
      403,
      'IpAddressUnauthorized',
    );
  });

  it('wraps InvalidSession', async () => {
    expectEnvelope(await call(sandbox.url, 'GET', '/api/v1/letters', { session: 'forged' }), 401, 'InvalidSession');
  });

  it('wraps an unknown route as 404 EntityNotFound', async () => {
    expectEnvelope(await call(sandbox.url, 'GET', '/api/v1/no-such-thing', { session }), 404, 'EntityNotFound');
  });

  it('wraps an unknown letter as 404 EntityNotFound', async () => {
    expectEnvelope(
      await call(sandbox.url, 'GET', '/api/v1/letters/7a1f0c9e-0000-4000-8000-000000000000', { session }),
      404,
      'EntityNotFound',
    );
  });

  it('wraps malformed JSON as 400 InvalidData', async () => {
    expectEnvelope(await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: '{"title": ' }), 400, 'InvalidData');
  });

  it('wraps a body that is not JSON as 400 InvalidData', async () => {
    const answer = await call(sandbox.url, 'PUT', '/api/v1/letters/draft', {
      session,
      headers: { 'content-type': 'text/plain' },
      body: 'a letter',
    });
    expectEnvelope(answer, 400, 'InvalidData');
    expect(field(answer.json, 'message')).toMatch(/Content-Type/);
  });

  it('wraps a body over 20 MiB as 400 InvalidData', async () => {
    const body = JSON.stringify(letterBody({ description: 'x'.repeat(20 * 1024 * 1024) }));
    const answer = await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body });
    expectEnvelope(answer, 400, 'InvalidData');
    expect(field(answer.json, 'message')).toMatch(/larger than 20971520 bytes/);
  });

  it('wraps a letter that fails validation as 400 InvalidData', async () => {
    expectEnvelope(
      await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody({ title: 7 }) }),
      400,
      'InvalidData',
    );
  });

  it('wraps an injected InsufficientAuthorization as 403', async () => {
    sandbox.store.injectFault({ status: 403 });
    expectEnvelope(await call(sandbox.url, 'GET', '/api/v1/letters', { session }), 403, 'InsufficientAuthorization');
  });

  it('wraps an injected 503 as ServiceUnavailable', async () => {
    sandbox.store.injectFault({ status: 503 });
    expectEnvelope(await call(sandbox.url, 'GET', '/api/v1/letters', { session }), 503, 'ServiceUnavailable');
  });

  it('gives every answer its own trace id', async () => {
    const first = field((await loginWith({})).json, 'traceId');
    const second = field((await loginWith({})).json, 'traceId');
    expect(first).not.toBe(second);
  });
});

describe('sandbox unexpected faults', () => {
  it('answer 500 UnexpectedError without the exception text or a stack trace', async () => {
    const real = testDirectory();
    const broken: SenderDirectory = {
      ...real,
      byClientId: () => {
        throw new Error('directory exploded at /secret/path.ts:12');
      },
    };
    const running = await startSandbox({
      directory: broken,
      clock: testClock().now,
      logger: createLogger({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const answer = await call(running.url, 'POST', '/api/v1/auth/login/api', {
        headers: { 'x-api-client-id': ACME.apiClientId, 'x-api-client-secret': ACME.apiClientSecret },
      });
      expectEnvelope(answer, 500, 'UnexpectedError');
      expect(JSON.stringify(answer.json)).not.toMatch(/exploded|secret\/path|at /);
    } finally {
      await running.close();
    }
  });
});
