// Exactly-once letter creation against the real sandbox over HTTP, in each of its contract modes:
// whatever an earlier attempt left behind (nothing, a draft marker, a recorded draft, a submitted
// letter), one letter results. Where the API offers no listing the client can search, a draft an
// earlier attempt made may be left unsubmitted, and the intake records that it may be.

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import type { ContractMode } from '../../src/sandbox/contract-mode.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { Base64Data, createSenderApiClient, SenderApiError } from '../../src/sender-api/index.js';
import { parseSenderDirectory, type Sender } from '../../src/senders/directory.js';
import type { LetterDraft } from '../../src/worker/decide.js';
import { letterApiFor } from '../../src/worker/letter-api.js';
import { memoryLetterStatuses } from '../../src/worker/letter-statuses.js';
import { type Checkpoint, type LetterApi, submitExactlyOnce } from '../../src/worker/submit-letter.js';

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
const MODES = ['ours', 'strict', 'foreign', 'foreign-list'] as const satisfies readonly ContractMode[];
const sandboxes = new Map<ContractMode, { sandbox: RunningSandbox; api: LetterApi }>();
let counter = 0;

beforeAll(async () => {
  for (const contractMode of MODES) {
    const sandbox = await startSandbox({ directory, clock: Date.now, logger, host: '127.0.0.1', port: 0, contractMode });
    const api = letterApiFor(createSenderApiClient({ baseUrl: sandbox.url, clock: Date.now, timeoutMs: 5000, logger }).as(sender));
    sandboxes.set(contractMode, { sandbox, api });
  }
});
afterAll(async () => {
  for (const { sandbox } of sandboxes.values()) await sandbox.close();
});

function modeOf(contractMode: ContractMode): { sandbox: RunningSandbox; api: LetterApi } {
  const mode = sandboxes.get(contractMode);
  if (mode === undefined) throw new Error(`no sandbox in ${contractMode} mode`);
  return mode;
}

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

/** Letter ids recorded by any intake of the test: an id is recorded by one intake only. */
const claimed = new Set<string>();

function memoryCheckpoint(
  start: { letterId?: string; draftStatus?: string; draftRequestedAt?: number } = {},
): Checkpoint & { recorded: string[]; draftStatuses: string[]; strays: unknown[] } {
  const recorded: string[] = [];
  const draftStatuses: string[] = [];
  const strays: unknown[] = [];
  const checkpoint = {
    letterId: start.letterId,
    draftStatus: start.draftStatus,
    draftRequestedAt: start.draftRequestedAt,
    recorded,
    draftStatuses,
    strays,
    markDraftRequested: async () => {},
    recordLetterId: async (id: string, draftStatus: string | undefined) => {
      if (claimed.has(id)) return 'taken' as const;
      claimed.add(id);
      recorded.push(id);
      draftStatuses.push(draftStatus ?? '(unread)');
      return 'ok' as const;
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
  statuses: memoryLetterStatuses(),
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

describe.each(MODES)('exactly-once submission against the %s sandbox', (contractMode) => {
  const api = () => modeOf(contractMode).api;
  const titled = (title: string) =>
    modeOf(contractMode)
      .sandbox.store.allLetters()
      .filter((l) => l.title === title);
  const searchable = contractMode === 'ours';
  const submitting = (checkpoint: Checkpoint) => submitExactlyOnce(api(), checkpoint, { letter, pdfSha256s: [pdfSha] }, deps);

  it('creates a draft, records its id, and submits it to PendingApproval', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await submitting(checkpoint);
    expect(checkpoint.recorded).toEqual([result.id]);
    expect(titled(letter.title).map((l) => [l.id, l.status, l.parts.map((p) => p.sha256)])).toEqual([
      [result.id, 'PendingApproval', [pdfSha]],
    ]);
  });

  it('submits the recorded draft instead of creating another', async () => {
    const draft = await api().saveDraft(letter, deps.signal);
    const result = await submitting(memoryCheckpoint({ letterId: draft.id, draftStatus: draft.status ?? '' }));
    expect(result.id).toBe(draft.id);
    expect(titled(letter.title).map((l) => l.status)).toEqual(['PendingApproval']);
  });

  it('counts a letter an earlier attempt submitted as done, with the status it shows, whatever that is called', async () => {
    const draft = await api().saveDraft(letter, deps.signal);
    const recorded = { letterId: draft.id, draftStatus: draft.status ?? '' };
    await submitting(memoryCheckpoint(recorded));
    modeOf(contractMode).sandbox.store.approve(draft.id);
    const again = await submitting(memoryCheckpoint(recorded));
    expect(again).toEqual({ id: draft.id, status: 'Approved' });
    expect(titled(letter.title).map((l) => l.status)).toEqual(['Approved']);
  });

  it(
    searchable
      ? 'adopts the draft an attempt created but could not record'
      : 'cannot look for a draft an earlier attempt made, so makes a new one and records that the earlier may be stray',
    async () => {
      const since = Date.now() - 1000;
      const orphan = await api().saveDraft(letter, deps.signal);
      const checkpoint = memoryCheckpoint({ draftRequestedAt: since });
      const result = await submitting(checkpoint);
      expect(checkpoint.recorded).toEqual([result.id]);
      const statuses = titled(letter.title)
        .map((l) => l.status)
        .sort();
      if (searchable) {
        expect({ id: result.id, strays: checkpoint.strays, statuses }).toEqual({
          id: orphan.id,
          strays: [],
          statuses: ['PendingApproval'],
        });
      } else {
        expect(result.id).not.toBe(orphan.id);
        expect({ strays: checkpoint.strays, statuses }).toEqual({
          strays: [{ requestedAt: since }],
          statuses: ['Draft', 'PendingApproval'],
        });
      }
    },
  );

  it('never lets two intakes with the same subject adopt one draft', async () => {
    const since = Date.now() - 1000;
    await api().saveDraft(letter, deps.signal); // one orphan; either intake may have made it
    const first = memoryCheckpoint({ draftRequestedAt: since });
    const second = memoryCheckpoint({ draftRequestedAt: since });
    const a = await submitting(first);
    const b = await submitting(second);
    expect(a.id).not.toBe(b.id);
    expect(titled(letter.title).filter((l) => l.status === 'PendingApproval')).toHaveLength(2);
    expect(second.strays).toEqual([{ requestedAt: since }]); // the draft it may have made is not found as its own
  });
});

describe('exactly-once submission: what only our own sandbox shows', () => {
  const api = (): LetterApi => modeOf('ours').api;
  const titled = (title: string) =>
    modeOf('ours')
      .sandbox.store.allLetters()
      .filter((l) => l.title === title);

  /** The sandbox behind a draft answer whose status is an operation's, not the letter's ("Success"). */
  const answeringSuccess = (inner: LetterApi): LetterApi => ({
    ...inner,
    saveDraft: async (l, signal) => ({ id: (await inner.saveDraft(l, signal)).id, status: 'Success' }),
  });
  const largePdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200 * 1024, 'x')]);
  const largeLetter = () => ({
    letter: { ...letter, parts: [{ fileName: 'big.pdf', mimeType: 'application/pdf' as const, base64Data: new Base64Data(largePdf) }] },
    pdfSha256s: [createHash('sha256').update(largePdf).digest('hex')],
  });

  it('submits a draft it just made whatever status the draft answer names, and records the status GET shows', async () => {
    const checkpoint = memoryCheckpoint();
    const result = await submitExactlyOnce(answeringSuccess(api()), checkpoint, largeLetter(), deps);
    expect(result.status).toBe('PendingApproval');
    expect(titled(letter.title).map((l) => l.status)).toEqual(['PendingApproval']);
    expect(checkpoint.draftStatuses).toEqual(['Draft']);
  });
  it('submits on retry a draft whose first submit failed, when the draft answer named another status than GET', async () => {
    const first = memoryCheckpoint();
    const failingSubmit: LetterApi = {
      ...answeringSuccess(api()),
      submit: async () => {
        throw new Error('connection reset');
      },
    };
    await expect(submitExactlyOnce(failingSubmit, first, { letter, pdfSha256s: [pdfSha] }, deps)).rejects.toThrow('connection reset');
    const [letterId = '', draftStatus = ''] = [first.recorded[0], first.draftStatuses[0]];
    const retry = memoryCheckpoint({ letterId, draftStatus });
    const result = await submitExactlyOnce(api(), retry, { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result).toEqual({ id: letterId, status: 'PendingApproval' });
    expect(titled(letter.title).map((l) => l.status)).toEqual(['PendingApproval']);
  });
  it('counts as submitted a letter an earlier attempt submitted, recorded before draft statuses were (no draftStatus)', async () => {
    const draft = await api().saveDraft(letter, deps.signal);
    await api().submit(draft.id, letter, deps.signal);
    const result = await submitExactlyOnce(api(), memoryCheckpoint({ letterId: draft.id }), { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result).toEqual({ id: draft.id, status: 'PendingApproval' });
    expect(titled(letter.title).map((l) => l.status)).toEqual(['PendingApproval']);
  });
  it('submits a draft recorded before draft statuses were (no draftStatus)', async () => {
    const draft = await api().saveDraft(letter, deps.signal);
    const result = await submitExactlyOnce(api(), memoryCheckpoint({ letterId: draft.id }), { letter, pdfSha256s: [pdfSha] }, deps);
    expect(result).toEqual({ id: draft.id, status: 'PendingApproval' });
    expect(titled(letter.title).map((l) => l.status)).toEqual(['PendingApproval']);
  });
  it('reads back a draft it just made and keeps its documents by id', async () => {
    const { letter: large, pdfSha256s } = largeLetter();
    const [sha] = pdfSha256s;
    const calls = counting(api());
    let draftDocuments: string[] = [];
    const watched: LetterApi = {
      ...calls.api,
      saveDraft: async (l, signal) => {
        const made = await calls.api.saveDraft(l, signal);
        draftDocuments = (
          modeOf('ours')
            .sandbox.store.allLetters()
            .find((x) => x.id === made.id)?.parts ?? []
        ).map((p) => p.id);
        return made;
      },
    };
    const result = await submitExactlyOnce(watched, memoryCheckpoint(), { letter: large, pdfSha256s }, deps);
    expect(calls.made).toEqual(['saveDraft', 'getLetter', 'submit']);
    const [stored] = titled(letter.title);
    expect([stored?.id, stored?.status, stored?.parts.map((p) => p.sha256)]).toEqual([result.id, 'PendingApproval', [sha]]);
    expect(draftDocuments).toHaveLength(1);
    expect(stored?.parts.map((p) => p.id)).toEqual(draftDocuments);
  });
  it('adopts the draft an attempt could not record for a sender with more letters than the search reads', async () => {
    // Its own sandbox: the 600 earlier letters would lengthen every other test's search.
    const busy = await startSandbox({ directory, clock: Date.now, logger, host: '127.0.0.1', port: 0, contractMode: 'ours' });
    try {
      for (let i = 0; i < 600; i += 1) {
        busy.store.letters.saveDraft(sender.senderId, { title: `Earlier ${i}`, description: '', genderTargeting: 'All', parts: [] });
      }
      const busyApi = letterApiFor(createSenderApiClient({ baseUrl: busy.url, clock: Date.now, timeoutMs: 5000, logger }).as(sender));
      const since = Date.now() - 1000;
      const orphan = await busyApi.saveDraft(letter, deps.signal);
      const checkpoint = memoryCheckpoint({ draftRequestedAt: since });
      const result = await submitExactlyOnce(busyApi, checkpoint, { letter, pdfSha256s: [pdfSha] }, deps);
      expect({ id: result.id, status: result.status, strays: checkpoint.strays }).toEqual({
        id: orphan.id,
        status: 'PendingApproval',
        strays: [],
      });
    } finally {
      await busy.close();
    }
  });
  it('does not adopt a draft with other PDFs', async () => {
    const other = {
      ...letter,
      parts: [{ fileName: 'a.pdf', mimeType: 'application/pdf' as const, base64Data: new Base64Data(Buffer.from('%PDF-other')) }],
    };
    await api().saveDraft(other, deps.signal);
    const result = await submitExactlyOnce(
      api(),
      memoryCheckpoint({ draftRequestedAt: Date.now() - 1000 }),
      { letter, pdfSha256s: [pdfSha] },
      deps,
    );
    expect(titled(letter.title).filter((l) => l.id === result.id && l.status === 'PendingApproval')).toHaveLength(1);
    expect(titled(letter.title).filter((l) => l.status === 'Draft')).toHaveLength(1);
  });
});
