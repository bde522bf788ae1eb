// SANDBOX_STRICT_CONTRACT: the sandbox shows only what the Sender API contract promises, so
// the gateway can be run against an API that leaves out what the contract calls "not shown".
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ACME, call, field, letterBody, login, testDirectory } from '../helpers/sandbox.js';

describe('the sandbox in strict-contract mode', () => {
  let sandbox: RunningSandbox;
  let session: string;
  beforeEach(async () => {
    sandbox = await startSandbox({
      directory: testDirectory(),
      clock: Date.now,
      logger: createLogger({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
      strictContract: true,
    });
    session = await login(sandbox.url, ACME);
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('shows a letter as its id, status, title and sender only: no documents, hashes or dates', async () => {
    const id = field((await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() })).json, 'id');
    const answer = await call(sandbox.url, 'GET', `/api/v1/letters/${String(id)}`, { session });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ id, status: 'Draft', title: 'Your November invoice', sender: { companyNameEn: ACME.companyNameEn } });
  });

  it('offers no listing of letters', async () => {
    await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() });
    const answer = await call(sandbox.url, 'GET', '/api/v1/letters?status=Draft', { session });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 404, errorCode: 'EntityNotFound' });
  });

  it('still keeps the documents for its operator view', async () => {
    const id = field((await call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body: letterBody() })).json, 'id');
    expect(
      sandbox.store
        .allLetters()
        .find((l) => l.id === id)
        ?.parts.map((p) => p.fileName),
    ).toEqual(['invoice.pdf']);
  });
});
