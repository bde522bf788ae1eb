import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { createSenderApiClient, type SenderApiClientDeps } from '../../src/sender-api/client.js';
import { SenderApiError } from '../../src/sender-api/errors.js';
import type { ApiCallEvent } from '../../src/sender-api/transport.js';
import { ACME, GLOBEX, startTestSandbox, type TestSandbox, testDirectory } from '../helpers/sandbox.js';

const silent = createLogger({ level: 'silent' });

/** A loopback HTTP server that accepts requests and never answers; `onRequest` sees each one arrive. */
async function silentServer(onRequest: () => void = () => undefined): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer(() => onRequest());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the silent server has no TCP port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('Sender API client failures without an API answer', () => {
  it('turns a request that gets no answer in time into a retryable error', async () => {
    const server = await silentServer();
    try {
      const api = createSenderApiClient({ baseUrl: server.url, clock: Date.now, timeoutMs: 150, logger: silent });
      const failure = await api
        .as(ACME)
        .login()
        .catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(SenderApiError);
      expect(failure).toMatchObject({
        kind: 'retryable',
        statusCode: undefined,
        message: expect.stringMatching(/no answer within 150 ms/),
      });
    } finally {
      await server.close();
    }
  });

  it('turns a refused connection into a retryable error', async () => {
    const server = await silentServer();
    await server.close();
    const api = createSenderApiClient({ baseUrl: server.url, clock: Date.now, timeoutMs: 2000, logger: silent });
    await expect(api.as(ACME).login()).rejects.toMatchObject({
      name: 'SenderApiError',
      kind: 'retryable',
      message: expect.stringMatching(/network error/),
    });
  });

  it("rethrows the caller's abort while it waits for a login", async () => {
    const controller = new AbortController();
    const reason = new Error('worker shutting down');
    const server = await silentServer(() => controller.abort(reason));
    try {
      const api = createSenderApiClient({ baseUrl: server.url, clock: Date.now, timeoutMs: 5000, logger: silent });
      await expect(api.as(ACME).login({ signal: controller.signal })).rejects.toBe(reason);
    } finally {
      await server.close();
    }
  });
});

describe('Sender API answers too large to read', () => {
  it('stops reading an answer past MAX_RESPONSE_BYTES and fails it as retryable', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let written = 0;
    let stopped = false;
    // A 64 MiB "JSON" answer, written as fast as the client reads it.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.on('close', () => {
        stopped = true;
      });
      const pump = (): void => {
        while (written < 64 && !stopped) {
          written += 1;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!stopped) res.end('{}');
      };
      pump();
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    try {
      const api = createSenderApiClient({
        baseUrl: `http://127.0.0.1:${address.port}`,
        clock: Date.now,
        timeoutMs: 10_000,
        logger: silent,
      });
      const failure = await api
        .as(ACME)
        .login()
        .catch((err: unknown) => err);
      expect(failure).toMatchObject({
        name: 'SenderApiError',
        kind: 'retryable',
        message: expect.stringMatching(/larger than 4194304 bytes/),
      });
      expect(written).toBeLessThan(64); // the client hung up instead of reading it all
    } finally {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});

describe('Sender API client failures the API answers', () => {
  let sandbox: TestSandbox;
  let lines: string[];
  let events: ApiCallEvent[];
  beforeEach(async () => {
    sandbox = await startTestSandbox({ directory: testDirectory({ [GLOBEX.senderId]: ['10.0.0.0/8'] }) });
    lines = [];
    events = [];
  });
  afterEach(async () => {
    await sandbox.close();
  });

  function client(extra: Partial<SenderApiClientDeps> = {}) {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    return createSenderApiClient({
      baseUrl: sandbox.url,
      clock: sandbox.clock.now,
      timeoutMs: 5000,
      logger: createLogger({ level: 'trace', destination }),
      onCall: (e) => events.push(e),
      ...extra,
    });
  }

  it("rethrows the caller's abort during a request instead of classifying it", async () => {
    const controller = new AbortController();
    const reason = new Error('job cancelled');
    const abortOnLetters: typeof fetch = (input, init) => {
      if (String(input).includes('/letters')) controller.abort(reason);
      return fetch(input, init);
    };
    const acme = client({ fetch: abortOnLetters }).as(ACME);
    await acme.login();
    await expect(acme.listLetters({}, { signal: controller.signal })).rejects.toBe(reason);
    expect(lines.some((l) => l.includes('sender api call failed'))).toBe(false);
    // A call we stopped ourselves (shutdown, a lost lock) says nothing about the API: not one of its calls.
    expect(events.map((e) => e.endpoint)).toEqual(['POST /api/v1/auth/login/api']);
  });

  it('classifies an injected 503 as retryable, with its error code and trace id', async () => {
    sandbox.store.injectFault({ status: 503, paths: '/api/v1/letters' });
    await expect(client().as(ACME).listLetters()).rejects.toMatchObject({
      kind: 'retryable',
      statusCode: 503,
      errorCode: 'ServiceUnavailable',
      traceId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      endpoint: 'GET /api/v1/letters',
    });
  });

  it('reads Retry-After from a 429', async () => {
    sandbox.store.injectFault({ status: 429, retryAfterSeconds: 7 });
    await expect(client().as(ACME).login()).rejects.toMatchObject({ kind: 'retryable', statusCode: 429, retryAfterMs: 7000 });
  });

  it('calls wrong credentials an operator problem', async () => {
    await expect(
      client()
        .as({ ...ACME, apiClientSecret: 'rotated-away' })
        .login(),
    ).rejects.toMatchObject({ kind: 'operator', errorCode: 'InvalidCredentials' });
  });

  it('calls a refused caller address an operator problem', async () => {
    await expect(client().as(GLOBEX).login()).rejects.toMatchObject({
      kind: 'operator',
      errorCode: 'IpAddressUnauthorized',
      statusCode: 403,
    });
  });

  it('calls InsufficientAuthorization an operator problem', async () => {
    sandbox.store.injectFault({ status: 403, errorCode: 'InsufficientAuthorization', paths: '/api/v1/letters' });
    await expect(client().as(ACME).listLetters()).rejects.toMatchObject({ kind: 'operator', errorCode: 'InsufficientAuthorization' });
  });

  it('logs an API error exactly once, with its error code and trace id', async () => {
    sandbox.store.injectFault({ status: 500, paths: '/api/v1/letters' });
    const failure = await client()
      .as(ACME)
      .listLetters()
      .catch((err: unknown) => err);
    const logged = lines.map((l): unknown => JSON.parse(l)).filter((l) => JSON.stringify(l).includes('sender api call failed'));
    expect(logged).toEqual([
      expect.objectContaining({
        errorCode: 'UnexpectedError',
        traceId: failure instanceof SenderApiError ? failure.traceId : 'missing',
        statusCode: 500,
      }),
    ]);
  });

  it('never logs the client secret or the session id', async () => {
    const acme = client().as(ACME);
    const session = await acme.login();
    sandbox.store.forgetSessions();
    await acme.listLetters();
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(0);
    expect(log).not.toContain(ACME.apiClientSecret);
    expect(log).not.toContain(session.sessionId);
  });

  it('reports every HTTP call to the observer with endpoint, status and error code', async () => {
    sandbox.store.injectFault({ status: 503, paths: '/api/v1/letters' });
    const acme = client().as(ACME);
    await acme.listLetters().catch(() => undefined);
    await acme.listLetters();
    expect(events).toEqual([
      { endpoint: 'POST /api/v1/auth/login/api', status: 200, errorCode: undefined, durationMs: 0 },
      { endpoint: 'GET /api/v1/letters', status: 503, errorCode: 'ServiceUnavailable', durationMs: 0 },
      { endpoint: 'GET /api/v1/letters', status: 200, errorCode: undefined, durationMs: 0 },
    ]);
  });
});
