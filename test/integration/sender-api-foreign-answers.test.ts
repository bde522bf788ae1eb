// The client against an API that makes other choices where the contract leaves them open (the
// sandbox's foreign modes): each answer the contract allows is read, none is "malformed".
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type ContractMode, FOREIGN_SESSION_TTL_MS } from '../../src/sandbox/contract-mode.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { Base64Data, createSenderApiClient } from '../../src/sender-api/index.js';
import { letterApiFor } from '../../src/worker/letter-api.js';
import { ACME, field, login, testClock, testDirectory } from '../helpers/sandbox.js';

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
    expect(session.endsAtMs).toBe(clock.now() + FOREIGN_SESSION_TTL_MS);
  });

  it('honours a +04:00 offset', async () => {
    const running = await start('foreign');
    await login(running.url, ACME); // the client's login is the second: +04:00
    const session = await clientOf(running).login();
    expect(session.endsAtMs).toBe(clock.now() + FOREIGN_SESSION_TTL_MS);
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

/** The real fetch, with the answers to one endpoint rewritten as another implementation might write them. */
function rewriting(path: string, rewrite: (answer: Response) => Promise<Response>): typeof fetch {
  return async (input, init) => {
    const answer = await fetch(input, init);
    return String(input).endsWith(path) ? rewrite(answer) : answer;
  };
}
const jsonAnswer = (body: unknown, status = 200): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('the client and answers the contract leaves open', () => {
  const clientWith = (running: RunningSandbox, fetchOf: typeof fetch) =>
    createSenderApiClient({
      baseUrl: running.url,
      clock: clock.now,
      timeoutMs: 5000,
      logger: createLogger({ level: 'silent' }),
      fetch: fetchOf,
    }).as(ACME);

  it('takes a session without validUntilUtc to end 30 minutes after its login', async () => {
    const running = await start('ours');
    const fetchOf = rewriting('/auth/login/api', async (a) => {
      return jsonAnswer({ sessionId: field(await a.json(), 'sessionId') });
    });
    const session = await clientWith(running, fetchOf).login();
    expect(session.endsAtMs).toBe(clock.now() + 30 * 60_000);
  });

  it('logs in again when a refresh answers isValid: false', async () => {
    const running = await start('ours');
    const fetchOf = rewriting('/auth/refresh', async (a) => jsonAnswer({ sessionId: field(await a.json(), 'sessionId'), isValid: false }));
    const acme = clientWith(running, fetchOf);
    await acme.login();
    await acme.refresh();
    expect(running.store.sessionCounts(ACME.senderId)).toEqual({ logins: 2, refreshes: 1 });
  });

  it('takes a 401 right after a fresh login as InvalidSession, retryable, and logs in no further', async () => {
    const running = await start('ours');
    const fetchOf = rewriting('/letters/unknown-letter', async () => new Response('', { status: 401 }));
    const acme = clientWith(running, fetchOf);
    await acme.login();
    await expect(acme.getLetter('unknown-letter')).rejects.toMatchObject({
      kind: 'retryable',
      errorCode: 'InvalidSession',
      statusCode: 401,
    });
    expect(running.store.sessionCounts(ACME.senderId).logins).toBe(2);
  });

  it('counts any 2xx to a submit as submitted, whatever its body says', async () => {
    const running = await start('ours');
    const fetchOf = rewriting('/letters/submit', async (a) => new Response(a.ok ? 'Accepted' : await a.text(), { status: a.status }));
    const acme = clientWith(running, fetchOf);
    const draft = await acme.saveDraft(letter());
    expect(await acme.submit({ ...letter(), id: draft.id })).toEqual({ status: undefined });
    expect(running.store.allLetters().map((l) => l.status)).toEqual(['PendingApproval']);
  });
});
