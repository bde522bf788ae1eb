// Exactly-once letter creation against the real sandbox over HTTP: whatever an earlier attempt
// left behind (nothing, a draft marker, a recorded draft, a submitted letter), one letter results.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { Base64Data, createSenderApiClient, SenderApiError } from '../../src/sender-api/index.js';
import { parseSenderDirectory, type Sender } from '../../src/senders/directory.js';
import type { LetterDraft } from '../../src/worker/decide.js';
import { letterApiFor } from '../../src/worker/letter-api.js';
import { type Checkpoint, type LetterApi, REUPLOAD_UP_TO_BYTES, submitExactlyOnce } from '../../src/worker/submit-letter.js';

const logger = createLogger({ level: 'silent' });
const directory = parseSenderDirectory(
  {
    senders: [
      {
        senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
        companyNameEn: 'Acme',
        addresses: ['letters@acme.example'],
        apiClientId: 'acme',
        apiClientSecret: 'acme-secret',
      },
    ],
  },
  {},
);
const sender = directory.senders[0] as Sender;
let sandbox: RunningSandbox;
let strictSandbox: RunningSandbox;
let api: LetterApi;
let strictApi: LetterApi;
let counter = 0;

beforeAll(async () => {
  sandbox = await startSandbox({ directory, clock: Date.now, logger, host: '127.0.0.1', port: 0 });
  api = letterApiFor(createSenderApiClient({ baseUrl: sandbox.url, clock: Date.now, timeoutMs: 5000, logger }).as(sender));
  strictSandbox = await startSandbox({ directory, clock: Date.now, logger, host: '127.0.0.1', port: 0, contractMode: 'strict' });
  strictApi = letterApiFor(createSenderApiClient({ baseUrl: strictSandbox.url, clock: Date.now, timeoutMs: 5000, logger }).as(sender));
});
afterAll(async () => {
  await sandbox.close();
  await strictSandbox.close();
});

let letter: LetterDraft;
let pdfSha: string;
beforeEach(() => {
  counter += 1;
  const pdf = Buffer.from(`%PDF-1.4 letter ${counter}`);
  pdfSha = createHash('sha256').update(pdf).digest('hex');
  letter = {
    title: `Letter ${counter}`,
    description: 'text',
    genderTargeting: 'All',
    parts: [{ fileName: 'a.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdf) }],
  };
});

function memoryCheckpoint(
  start: { letterId?: string; draftRequestedAt?: number } = {},
): Checkpoint & { recorded: string[]; strays: unknown[] } {
  const recorded: string[] = [];
  const strays: unknown[] = [];
  const checkpoint = {
    letterId: start.letterId,
    draftRequestedAt: start.draftRequestedAt,
    recorded,
    strays,
    markDraftRequested: async () => {},
    recordLetterId: async (id: string) => {
      recorded.push(id);
    },
    recordStrayDraft: async (stray: unknown) => {
      strays.push(stray);
    },
  };
  return checkpoint;
}

const deps = {
  clock: Date.now,
  signal: new AbortController().signal,
  isInvalidData: (e: unknown) => e instanceof SenderApiError && e.errorCode === 'InvalidData',
};
/** The API, noting each call by name. */
function counting(inner: LetterApi): { api: LetterApi; made: string[] } {
  const made: string[] = [];
  const noted = <T>(name: string, call: () => T): T => {
    made.push(name);
    return call();
  };
  return {
    made,
    api: {
      saveDraft: (l, signal) => noted('saveDraft', () => inner.saveDraft(l, signal)),
      submit: (id, l, signal) => noted('submit', () => inner.submit(id, l, signal)),
      getLetter: (id, signal) => noted('getLetter', () => inner.getLetter(id, signal)),
      findDraft: (l, s, since, signal) => noted('findDraft', () => inner.findDraft(l, s, since, signal)),
    },
  };
}
const titled = (title: string) => sandbox.store.allLetters().filter((l) => l.title === title);

describe('exactly-once submission', () => {
  it('creates a draft, records its id, and submits it to PendingApproval', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await submitExactlyOnce(api, checkpoint, { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result.status).toBe('PendingApproval');
    expect(checkpoint.recorded).toEqual([result.id]);
    expect(titled(letter.title)).toHaveLength(1);
  });

  it('submits a draft it just made with small PDFs without reading it back, uploading them again', async () => {
    const calls = counting(api);
    const result = await submitExactlyOnce(calls.api, memoryCheckpoint(), { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result.status).toBe('PendingApproval');
    expect(calls.made).toEqual(['saveDraft', 'submit']);
    expect(titled(letter.title).map((l) => [l.status, l.parts.map((p) => p.sha256)])).toEqual([['PendingApproval', [pdfSha]]]);
  });

  it('reads back a draft it just made with larger PDFs and keeps its documents by id', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(REUPLOAD_UP_TO_BYTES, 'x')]);
    const large = { ...letter, parts: [{ fileName: 'big.pdf', mimeType: 'application/pdf' as const, base64Data: new Base64Data(pdf) }] };
    const sha = createHash('sha256').update(pdf).digest('hex');
    const calls = counting(api);
    let draftDocuments: string[] = [];
    const watched: LetterApi = {
      ...calls.api,
      saveDraft: async (l, signal) => {
        const made = await calls.api.saveDraft(l, signal);
        draftDocuments = (sandbox.store.allLetters().find((x) => x.id === made.id)?.parts ?? []).map((p) => p.id);
        return made;
      },
    };
    const result = await submitExactlyOnce(watched, memoryCheckpoint(), { letter: large, pdfSha256s: [sha] }, deps);
    expect(calls.made).toEqual(['saveDraft', 'getLetter', 'submit']);
    const [stored] = titled(letter.title);
    expect([stored?.id, stored?.status, stored?.parts.map((p) => p.sha256)]).toEqual([result.id, 'PendingApproval', [sha]]);
    expect(draftDocuments).toHaveLength(1);
    expect(stored?.parts.map((p) => p.id)).toEqual(draftDocuments);
  });

  it('submits the recorded draft instead of creating another', async () => {
    const draft = await api.saveDraft(letter, deps.signal);
    const result = await submitExactlyOnce(api, memoryCheckpoint({ letterId: draft.id }), { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result.id).toBe(draft.id);
    expect(titled(letter.title).map((l) => l.status)).toEqual(['PendingApproval']);
  });

  it('counts a letter submitted by an earlier attempt as done', async () => {
    const first = await submitExactlyOnce(api, memoryCheckpoint(), { letter, pdfSha256s: [pdfSha] }, deps);
    const again = await submitExactlyOnce(api, memoryCheckpoint({ letterId: first.id }), { letter, pdfSha256s: [pdfSha] }, deps);
    expect(again).toMatchObject({ id: first.id, status: 'PendingApproval' });
    expect(titled(letter.title)).toHaveLength(1);
  });

  it('adopts the draft an attempt created but could not record', async () => {
    const since = Date.now() - 1000;
    const orphan = await api.saveDraft(letter, deps.signal);
    const checkpoint = memoryCheckpoint({ draftRequestedAt: since });
    const result = await submitExactlyOnce(api, checkpoint, { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result.id).toBe(orphan.id);
    expect(checkpoint.recorded).toEqual([orphan.id]);
    expect(titled(letter.title)).toHaveLength(1);
  });

  it('does not adopt a draft with other PDFs', async () => {
    const other = {
      ...letter,
      parts: [{ fileName: 'a.pdf', mimeType: 'application/pdf' as const, base64Data: new Base64Data(Buffer.from('%PDF-other')) }],
    };
    await api.saveDraft(other, deps.signal);
    const result = await submitExactlyOnce(
      api,
      memoryCheckpoint({ draftRequestedAt: Date.now() - 1000 }),
      { letter, pdfSha256s: [pdfSha] },
      deps,
    );
    expect(titled(letter.title).filter((l) => l.id === result.id && l.status === 'PendingApproval')).toHaveLength(1);
    expect(titled(letter.title).filter((l) => l.status === 'Draft')).toHaveLength(1);
  });
});

describe('exactly-once submission against an API that shows only what the contract promises', () => {
  const strictTitled = (title: string) => strictSandbox.store.allLetters().filter((l) => l.title === title);

  it('submits a letter whose documents it cannot see, uploading the PDFs again', async () => {
    const result = await submitExactlyOnce(strictApi, memoryCheckpoint(), { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result.status).toBe('PendingApproval');
    expect(strictTitled(letter.title).map((l) => [l.status, l.parts.map((p) => p.sha256)])).toEqual([['PendingApproval', [pdfSha]]]);
  });

  it('cannot look for a draft an earlier attempt made, so makes a new one and records that the earlier may be stray', async () => {
    const since = Date.now() - 1000;
    const orphan = await strictApi.saveDraft(letter, deps.signal);
    const checkpoint = memoryCheckpoint({ draftRequestedAt: since });
    const result = await submitExactlyOnce(strictApi, checkpoint, { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result.id).not.toBe(orphan.id);
    expect(checkpoint.recorded).toEqual([result.id]);
    expect(checkpoint.strays).toEqual([{ requestedAt: since }]);
    expect(
      strictTitled(letter.title)
        .map((l) => l.status)
        .sort(),
    ).toEqual(['Draft', 'PendingApproval']);
  });
});
