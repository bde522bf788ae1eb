// SANDBOX_CONTRACT_MODE: where the Sender API contract leaves a choice open, the sandbox answers
// as our own choices (ours), as the contract alone promises (strict), or as another
// implementation might (foreign, foreign-list), so the gateway can be run against each.
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type ContractMode, FOREIGN_DRAFT_STATUS } from '../../src/sandbox/contract-mode.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ACME, call, field, letterBody, login, testDirectory } from '../helpers/sandbox.js';

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(contractMode: ContractMode, clock: () => number = Date.now): Promise<{ url: string; session: string }> {
  sandbox = await startSandbox({
    directory: testDirectory(),
    clock,
    logger: createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    contractMode,
  });
  return { url: sandbox.url, session: await login(sandbox.url, ACME) };
}

describe('the sandbox in strict mode', () => {
  it('shows a letter as its id, status, title and sender only: no documents, hashes or dates', async () => {
    const { url, session } = await start('strict');
    const id = field((await call(url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() })).json, 'id');
    const answer = await call(url, 'GET', `/api/v1/letters/${String(id)}`, { session });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ id, status: 'Draft', title: 'Your November invoice', sender: { companyNameEn: ACME.companyNameEn } });
  });

  it('offers no listing of letters', async () => {
    const { url, session } = await start('strict');
    await call(url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() });
    const answer = await call(url, 'GET', '/api/v1/letters?status=Draft', { session });
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 404, errorCode: 'EntityNotFound' });
  });

  it('still keeps the documents for its operator view', async () => {
    const { url, session } = await start('strict');
    const id = field((await call(url, 'POST', '/api/v1/letters/submit', { session, body: letterBody() })).json, 'id');
    expect(
      sandbox?.store
        .allLetters()
        .find((l) => l.id === id)
        ?.parts.map((p) => p.fileName),
    ).toEqual(['invoice.pdf']);
  });
});

describe('the sandbox in foreign mode', () => {
  const loginAnswer = async (url: string) =>
    (
      await call(url, 'POST', '/api/v1/auth/login/api', {
        headers: { 'x-api-client-id': ACME.apiClientId, 'x-api-client-secret': ACME.apiClientSecret },
      })
    ).json;

  it('writes validUntilUtc without a zone and with seven fraction digits, then at +04:00 on the next login, five minutes ahead', async () => {
    const now = Date.parse('2026-11-25T13:37:56.123Z');
    const { url } = await start('foreign', () => now); // one login made
    expect(field(await loginAnswer(url), 'validUntilUtc')).toBe('2026-11-25T17:42:56.1234567+04:00');
    expect(field(await loginAnswer(url), 'validUntilUtc')).toBe('2026-11-25T13:42:56.1234567');
  });

  it('answers a refresh with the session id only', async () => {
    const { url, session } = await start('foreign');
    const answer = await call(url, 'POST', '/api/v1/auth/refresh', { session });
    expect(Object.keys(answer.json ?? {})).toEqual(['sessionId']);
  });

  it('answers a call without a valid session 401 with an empty, a plain-text and a message-only body in turn', async () => {
    const { url } = await start('foreign');
    const seen: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${url}/api/v1/letters/x`, { headers: { 'x-session': 'unknown' } });
      seen.push(`${response.status} ${(response.headers.get('content-type') ?? '').split(';')[0]} ${await response.text()}`);
    }
    expect(seen).toEqual(['401 text/plain ', '401 text/plain Session expired', '401 application/json {"message":"Session expired"}']);
  });

  it('names the draft status its own way, adds fields of its own, shows the letter fields only, and lists nothing', async () => {
    const { url, session } = await start('foreign');
    const saved = (await call(url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() })).json;
    expect(field(saved, 'status')).toBe(FOREIGN_DRAFT_STATUS);
    const shown = (await call(url, 'GET', `/api/v1/letters/${String(field(saved, 'id'))}`, { session })).json;
    expect(Object.keys(shown ?? {}).sort()).toEqual(['id', 'revision', 'sender', 'status', 'title']);
    expect((await call(url, 'GET', '/api/v1/letters', { session })).status).toBe(404);
  });

  it('lists letters in another shape in foreign-list mode: paged, without descriptions', async () => {
    const { url, session } = await start('foreign-list');
    await call(url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() });
    const listed = await call(url, 'GET', `/api/v1/letters?status=${FOREIGN_DRAFT_STATUS}`, { session });
    expect(listed.status).toBe(200);
    expect(field(listed.json, 'paging')).toEqual({ page: 1, size: 20, totalCount: 1 });
    const data = field(listed.json, 'data');
    const item: unknown = Array.isArray(data) ? data[0] : undefined;
    expect(Object.keys(item ?? {}).sort()).toEqual(['createdAt', 'documents', 'id', 'status', 'title']);
  });
});
