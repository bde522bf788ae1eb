// Letter statuses are read, not guessed: a status other than the draft status recorded for a
// letter proves a submit only when our own submit was answered with it before (learned per API)
// or when it is one of the contract's four; a status any draft of ours showed never does; any
// other is UnknownLetterStatus (the job reads it again, its last attempt alerts). And a read-back
// that fails right after our own new draft records the draft's id first and is retried: the retry
// submits that draft. Against the sandbox over HTTP, with the API's answers bent where a real API
// would differ.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UnknownLetterStatus } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { Base64Data, createSenderApiClient, LETTER_ENDPOINTS, SenderApiError } from '../../src/sender-api/index.js';
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
const [sender] = directory.senders as [Sender];
let sandbox: RunningSandbox;
let api: LetterApi;
beforeAll(async () => {
  sandbox = await startSandbox({ directory, clock: Date.now, logger, host: '127.0.0.1', port: 0, contractMode: 'ours' });
  api = letterApiFor(createSenderApiClient({ baseUrl: sandbox.url, clock: Date.now, timeoutMs: 5000, logger }).as(sender));
});
afterAll(async () => {
  await sandbox.close();
});

let counter = 0;
let letter: LetterDraft;
let pdfSha: string;
let statuses: ReturnType<typeof memoryLetterStatuses>;
beforeEach(() => {
  counter += 1;
  const pdf = Buffer.from(`%PDF-1.4 status letter ${counter}`);
  pdfSha = createHash('sha256').update(pdf).digest('hex');
  letter = {
    title: `Status letter ${counter}`,
    description: 'text',
    genderTargeting: 'All',
    parts: [{ fileName: 'a.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdf) }],
  };
  statuses = memoryLetterStatuses(); // a fresh API's knowledge for each case
});

const stored = () => sandbox.store.allLetters().filter((l) => l.title === letter.title);

function checkpointOf(start: { letterId?: string; draftStatus?: string; draftRequestedAt?: number } = {}) {
  const recorded: [string, string | undefined][] = [];
  const checkpoint: Checkpoint & { recorded: typeof recorded } = {
    letterId: start.letterId,
    draftStatus: start.draftStatus,
    draftRequestedAt: start.draftRequestedAt,
    recorded,
    markDraftRequested: async () => {},
    recordLetterId: async (id, draftStatus) => {
      recorded.push([id, draftStatus]);
      return 'ok';
    },
    recordStrayDraft: async () => {},
  };
  return checkpoint;
}

const submitting = (with_: LetterApi, checkpoint: Checkpoint) =>
  submitExactlyOnce(
    with_,
    checkpoint,
    { letter, pdfSha256s: [pdfSha] },
    {
      clock: Date.now,
      signal: new AbortController().signal,
      isInvalidData: (e) => e instanceof SenderApiError && e.errorCode === 'InvalidData',
      statuses,
    },
  );

/** The API, with GET showing `rename(status)` instead of the status the sandbox holds. */
const showing = (rename: (status: string) => string, inner: LetterApi = api): LetterApi => ({
  ...inner,
  getLetter: async (id, signal) => {
    const shown = await inner.getLetter(id, signal);
    return { ...shown, status: rename(shown.status) };
  },
});

const refusingSubmit = (inner: LetterApi): LetterApi => ({
  ...inner,
  submit: async () => {
    throw new SenderApiError({
      kind: 'permanent',
      endpoint: LETTER_ENDPOINTS.submit,
      statusCode: 400,
      errorCode: 'InvalidData',
      traceId: undefined,
      retryAfterMs: undefined,
      apiMessage: 'the letter cannot be submitted',
    });
  },
});

describe('a status other than the draft status is read, not taken for a submit', () => {
  it('a held draft showing a status no submit of ours answered and the contract does not name is UnknownLetterStatus, and nothing is submitted', async () => {
    const draft = await api.saveDraft(letter, new AbortController().signal);
    const passing = showing((s) => (s === 'Draft' ? 'Processing' : s));
    await expect(submitting(passing, checkpointOf({ letterId: draft.id, draftStatus: 'Draft' }))).rejects.toBeInstanceOf(
      UnknownLetterStatus,
    );
    expect(stored().map((l) => l.status)).toEqual(['Draft']);
  });

  it('a held draft showing a status our own submit was answered with before counts as submitted', async () => {
    statuses.submitted.add('Queued');
    const draft = await api.saveDraft(letter, new AbortController().signal);
    await api.submit(draft.id, letter, new AbortController().signal);
    const queued = showing((s) => (s === 'PendingApproval' ? 'Queued' : s));
    expect(await submitting(queued, checkpointOf({ letterId: draft.id, draftStatus: 'Draft' }))).toEqual({
      id: draft.id,
      status: 'Queued',
    });
  });

  it('learns the status our own 2xx submit answers, but never one a draft of ours showed', async () => {
    const answering = (status: string): LetterApi => ({
      ...api,
      submit: async (id, l, signal) => ({ status: (await api.submit(id, l, signal)).status === undefined ? undefined : status }),
    });
    await submitting(answering('Queued'), checkpointOf());
    expect([...statuses.submitted]).toEqual(['Queued']);
    counter += 1;
    letter = { ...letter, title: `Status letter ${counter}` };
    await submitting(answering('Draft'), checkpointOf()); // a 2xx that leaves the letter a draft teaches nothing
    expect([...statuses.submitted]).toEqual(['Queued']);
    expect(statuses.drafts.has('Draft')).toBe(true);
  });

  it('a draft showing a status any draft of ours showed is a draft: it is submitted, though its read-back caught a passing state', async () => {
    // The first attempt's read-back caught "Processing", and its submit was lost.
    const first = checkpointOf();
    let reads = 0;
    const passingOnce = showing((s) => (reads++ === 0 ? 'Processing' : s));
    const lostSubmit: LetterApi = {
      ...passingOnce,
      submit: async () => {
        throw new Error('connection reset');
      },
    };
    await expect(submitting(lostSubmit, first)).rejects.toThrow('connection reset');
    const [[letterId, draftStatus] = ['', undefined]] = first.recorded;
    expect(draftStatus).toBe('Processing');
    statuses.drafts.add('Draft'); // another draft of ours showed it
    const result = await submitting(api, checkpointOf({ letterId, ...(draftStatus === undefined ? {} : { draftStatus }) }));
    expect(result).toEqual({ id: letterId, status: 'PendingApproval' });
    expect(stored().map((l) => l.status)).toEqual(['PendingApproval']);
  });

  it('an adopted draft records the status GET shows, not the listing’s, and is submitted', async () => {
    const since = Date.now() - 1000;
    const orphan = await api.saveDraft(letter, new AbortController().signal);
    const listingOtherwise: LetterApi = {
      ...api,
      findDraft: async (l, shas, at, signal) => {
        const search = await api.findDraft(l, shas, at, signal);
        return search.kind === 'found' ? { kind: 'found', drafts: search.drafts.map((d) => ({ ...d, status: 'Listed' })) } : search;
      },
    };
    const checkpoint = checkpointOf({ draftRequestedAt: since });
    const result = await submitting(listingOtherwise, checkpoint);
    expect(checkpoint.recorded).toEqual([[orphan.id, 'Draft']]);
    expect(result).toEqual({ id: orphan.id, status: 'PendingApproval' });
    expect(stored().map((l) => l.status)).toEqual(['PendingApproval']);
  });

  it('a refused submit that moved the draft to a status proving nothing is UnknownLetterStatus, not a submit', async () => {
    const draft = await api.saveDraft(letter, new AbortController().signal);
    const moved = refusingSubmit(showing((s) => (s === 'Draft' ? 'Rejected' : s)));
    await expect(submitting(moved, checkpointOf({ letterId: draft.id, draftStatus: 'Draft' }))).rejects.toBeInstanceOf(UnknownLetterStatus);
  });

  it('a record without a draft status against an API whose drafts say "Unsent": a refused submit is not a submit', async () => {
    const draft = await api.saveDraft(letter, new AbortController().signal);
    const unsent = refusingSubmit(showing((s) => (s === 'Draft' ? 'Unsent' : s)));
    await expect(submitting(unsent, checkpointOf({ letterId: draft.id }))).rejects.toBeInstanceOf(UnknownLetterStatus);
    statuses.drafts.add('Unsent'); // once a draft of ours showed it, the refusal stands as the letter's
    await expect(submitting(unsent, checkpointOf({ letterId: draft.id }))).rejects.toMatchObject({ errorCode: 'InvalidData' });
    expect(stored().map((l) => l.status)).toEqual(['Draft']);
  });
});

describe('the read-back right after our own new draft', () => {
  it('a 404 (an API reading a replica) records the draft id first and is retryable; the retry submits that draft', async () => {
    const notYetReadable: LetterApi = {
      ...api,
      saveDraft: async (l, signal) => {
        const made = await api.saveDraft(l, signal);
        // The API's next two reads of it answer 404: this read-back, and the retry's first.
        sandbox.store.injectFault({ status: 404, errorCode: 'EntityNotFound', count: 2, paths: `/api/v1/letters/${made.id}` });
        return made;
      },
    };
    const first = checkpointOf();
    await expect(submitting(notYetReadable, first)).rejects.toMatchObject({ statusCode: 404, kind: 'retryable' });
    const [[letterId, draftStatus] = ['', 'none']] = first.recorded;
    expect(draftStatus).toBeUndefined();
    await expect(submitting(api, checkpointOf({ letterId }))).rejects.toMatchObject({ statusCode: 404, kind: 'retryable' });
    expect(await submitting(api, checkpointOf({ letterId }))).toEqual({ id: letterId, status: 'PendingApproval' });
    expect(stored().map((l) => [l.id, l.status])).toEqual([[letterId, 'PendingApproval']]);
  });
});
