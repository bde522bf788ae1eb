import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { ACME, call, field, letterBody, login, pdfBase64, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

describe('sandbox logging', () => {
  let sandbox: TestSandbox;
  let lines: string[];
  beforeEach(async () => {
    lines = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    sandbox = await startTestSandbox({ logger: createLogger({ level: 'trace', destination }) });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('never writes client secrets, session ids or document content', async () => {
    const session = await login(sandbox.url, ACME);
    await call(sandbox.url, 'POST', '/api/v1/auth/login/api', {
      body: { apiClientId: ACME.apiClientId, apiClientSecret: ACME.apiClientSecret },
    });
    const refreshed = field((await call(sandbox.url, 'POST', '/api/v1/auth/refresh', { session })).json, 'sessionId');
    await call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body: letterBody() });
    await call(sandbox.url, 'GET', '/api/v1/letters', { session: 'unknown-session-value' });
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of [ACME.apiClientSecret, session, String(refreshed), pdfBase64('invoice'), 'unknown-session-value']) {
      expect(log).not.toContain(secret);
    }
  });

  it('logs each request with the trace id its error answer carries', async () => {
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters');
    const traceId = field(answer.json, 'traceId');
    expect(typeof traceId).toBe('string');
    expect(lines.filter((l) => l.includes(`"traceId":"${String(traceId)}"`)).length).toBeGreaterThanOrEqual(2);
  });
});
