// The client against an API that makes other choices where the contract leaves them open (the
// sandbox's foreign modes): each answer the contract allows is read, none is "malformed".
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type ContractMode, FOREIGN_SESSION_TTL_MS } from '../../src/sandbox/contract-mode.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { Base64Data, createSenderApiClient } from '../../src/sender-api/index.js';
import { letterApiFor } from '../../src/worker/letter-api.js';
import { ACME, login, testClock, testDirectory } from '../helpers/sandbox.js';

const clock = testClock(Date.parse('2026-11-25T13:37:56.123Z'));
let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(contractMode: ContractMode): Promise<RunningSandbox> {
  sandbox = await startSandbox({
    directory: testDirectory(),
    clock: clock.now,
    logger: createLogger({ level: 'silent' }),
    host: '127.0.0.1',
    port: 0,
    contractMode,
  });
  return sandbox;
}
const clientOf = (running: RunningSandbox) =>
  createSenderApiClient({ baseUrl: running.url, clock: clock.now, timeoutMs: 5000, logger: createLogger({ level: 'silent' }) }).as(ACME);

describe('the client reads every session answer the contract allows', () => {
  it('reads a validUntilUtc written without a zone and with seven fraction digits as UTC', async () => {
    const running = await start('foreign'); // its first login answers 2026-11-25T13:42:56.1234567
    const session = await clientOf(running).login();
    expect(session.validUntilMs).toBe(clock.now() + FOREIGN_SESSION_TTL_MS);
  });

  it('honours a +04:00 offset', async () => {
    const running = await start('foreign');
    await login(running.url, ACME); // the client's login is the second: +04:00
    const session = await clientOf(running).login();
    expect(session.validUntilMs).toBe(clock.now() + FOREIGN_SESSION_TTL_MS);
  });
});

describe('the client on a 401 that carries no errorCode', () => {
  it('logs in again once and repeats the call', async () => {
    const running = await start('foreign');
    await login(running.url, ACME); // the client's login is the second: +04:00, readable before and after
    const acme = clientOf(running);
    const draft = await acme.saveDraft(letter());
    running.store.forgetSessions(); // the next call is answered 401 with an empty body
    const shown = await acme.getLetter(draft.id);
    expect(shown.id).toBe(draft.id);
    expect(running.store.sessionCounts(ACME.senderId).logins).toBe(3);
  });
});

describe('the client and a listing in another shape', () => {
  it('finds that it cannot search for an earlier draft, instead of failing as if the API were down', async () => {
    const running = await start('foreign-list');
    await login(running.url, ACME); // the client's login is the second: +04:00, readable before and after
    const api = letterApiFor(clientOf(running));
    const made = letter();
    await api.saveDraft(made, new AbortController().signal);
    const search = await api.findDraft(made, [], clock.now() - 60_000, new AbortController().signal);
    expect(search).toEqual({ kind: 'unsearchable' });
  });
});

function letter() {
  return {
    title: 'Your November invoice',
    description: 'Please find the invoice attached.',
    genderTargeting: 'All' as const,
    parts: [{ fileName: 'invoice.pdf', mimeType: 'application/pdf' as const, base64Data: new Base64Data(Buffer.from('%PDF-1.4 x')) }],
  };
}
