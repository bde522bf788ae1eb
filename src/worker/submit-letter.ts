// Exactly-once letter creation (docs/design.md §9, §10): draft → read back → checkpoint the letter
// id → submit → verify. The PDFs are uploaded with the draft; the submit refers to them by id when
// the read-back shows its documents (the contract does not promise it: otherwise they are uploaded
// again).
//
// Statuses are read, not guessed (letter-statuses.ts): the status `GET` shows for our new draft
// is recorded with the letter id as `draftStatus` (the draft answer's own may be an operation's,
// "Created"). A draft this attempt made is submitted without a status check, and a 2xx to our
// submit ends the intake submitted. A held draft is judged by the status it shows now: a draft
// status (its recorded one, or one any draft of ours showed) is submitted; a status that proves
// a submit (learned from our own submits to this API, or one of the contract's four) ends the
// intake submitted; any other is UnknownLetterStatus, read again after the job's backoff. A submit
// refused as InvalidData is judged alike: a draft status lets the refusal stand.
// A read-back that fails right after our own new draft (a 404 from an API reading a replica, a
// 503) records the draft's id first, without a draft status, and is retried: the next attempt
// submits that draft, never a second one.
//
// The checkpoint is what makes a retry safe: an attempt that finds a letter id never creates a
// second draft, and only the intake's current owner can record one, once (a worker that lost
// the intake cannot, so it never submits the draft it made: that draft is recorded as stray).
// The gap a checkpoint cannot close (the process dies after the API created the draft but before
// the id was recorded) is closed by a marker written before the draft is requested: a retry
// that finds the marker but no id first looks for that draft among the sender's letters (same
// title, description and PDFs, created after the marker, recorded by no other intake) and adopts
// it. When the API offers no way to look, the retry creates a new draft and records that the
// earlier one may be stray: a stray draft is harmless, a second submitted letter is not.
import { OwnershipLost, UnknownLetterStatus } from '../errors.js';
import type { StrayDraft } from '../intake/record.js';
import { SenderApiError } from '../sender-api/index.js';
import type { LetterDraft } from './decide.js';
import { judgeStatus, type LetterStatuses } from './letter-statuses.js';

/**
 * The draft status of records written before draft statuses were recorded: the code that wrote
 * them knew the contract sandbox's name only. Such a letter refused on submit while it shows
 * another status has left the draft state (an earlier attempt submitted it).
 */
export const LEGACY_DRAFT_STATUS = 'Draft';

/** A draft as its save answered: the id, and the status the API gives a draft when it said. */
export interface SavedDraft {
  readonly id: string;
  readonly status?: string | undefined;
}

export interface LetterView {
  readonly id: string;
  readonly status: string;
  /** The letter's documents, in order, when the API shows them (the contract does not promise it). */
  readonly parts?: readonly { readonly id: string; readonly sha256: string }[] | undefined;
}

/** The intake's letter: its id and the status it showed when it ended (when an answer showed one). */
export interface SubmittedLetter {
  readonly id: string;
  readonly status: string | undefined;
}

/** A draft of ours found among the sender's letters, with the status it shows (its draft status). */
export interface FoundDraft {
  readonly id: string;
  readonly status: string;
}

/** What a search among the sender's letters found; `unsearchable` when the API offers no listing the client can read. */
export type DraftSearch =
  | { readonly kind: 'found'; readonly drafts: readonly FoundDraft[] }
  | { readonly kind: 'none' }
  | { readonly kind: 'unsearchable' };

/** The Sender API as the worker needs it, already bound to one sender's session. */
export interface LetterApi {
  saveDraft(letter: LetterDraft, signal: AbortSignal): Promise<SavedDraft>;
  /** Resolves on any 2xx, with the status its body shows, if any. */
  submit(id: string, letter: SubmitBody, signal: AbortSignal): Promise<{ readonly status: string | undefined }>;
  getLetter(id: string, signal: AbortSignal): Promise<LetterView>;
  /** Drafts of this sender matching the letter and created at or after `since`. */
  findDraft(letter: LetterDraft, pdfSha256s: readonly string[], since: number, signal: AbortSignal): Promise<DraftSearch>;
}

/**
 * The intake's durable progress. The checkpoint writes must be persisted before they resolve and
 * reject with OwnershipLost when the caller no longer holds the intake (or, for the letter id,
 * when another id is recorded already).
 */
export interface Checkpoint {
  readonly letterId: string | undefined;
  /** Recorded with the letter id; absent on records written before it was. */
  readonly draftStatus: string | undefined;
  readonly draftRequestedAt: number | undefined;
  markDraftRequested(at: number): Promise<void>;
  /** Records the letter id and its draft status (undefined: not read yet); 'taken' when another intake recorded that letter. */
  recordLetterId(letterId: string, draftStatus: string | undefined): Promise<'ok' | 'taken'>;
  /** Notes a draft that will never be submitted; allowed whoever holds the intake. */
  recordStrayDraft(stray: Omit<StrayDraft, 'at'>): Promise<void>;
}

/** The letter as submitted: its documents either uploaded again or kept by id. */
export type SubmitBody = Omit<LetterDraft, 'parts'> & {
  readonly parts: readonly (LetterDraft['parts'][number] | { readonly id: string })[];
};

export interface SubmitInput {
  readonly letter: LetterDraft;
  readonly pdfSha256s: readonly string[];
}

interface HeldDraft {
  readonly id: string;
  readonly draftStatus: string | undefined;
  /** The read-back that gave the draft status, when it was read just now. */
  readonly shown?: LetterView | undefined;
}

type Deps = {
  readonly clock: () => number;
  readonly signal: AbortSignal;
  readonly isInvalidData: (err: unknown) => boolean;
  /** What this Sender API's statuses were seen to mean (letter-statuses.ts). */
  readonly statuses: LetterStatuses;
};

export async function submitExactlyOnce(api: LetterApi, checkpoint: Checkpoint, input: SubmitInput, deps: Deps): Promise<SubmittedLetter> {
  const { signal } = deps;
  const held = await adoptEarlierDraft(api, checkpoint, input, deps);
  // Made just now, a draft by definition: its read-back gives the documents' ids, no decision.
  if (held === undefined) {
    const made = await createDraft(api, checkpoint, input, deps);
    return submitDraft(api, made.draft, partsFor(made.shown, input), input, deps);
  }
  const shown = held.shown ?? (await readBack(api, held.id, held.draftStatus === undefined, signal));
  if (held.draftStatus === undefined) {
    // No draft status recorded (a read-back that failed right after our draft, or a record from
    // before draft statuses were): it is submitted, and a refusal is judged by the status then.
    return submitDraft(api, { id: held.id, draftStatus: undefined }, partsFor(shown, input), input, deps);
  }
  const verdict = judgeStatus(shown.status, held.draftStatus, await deps.statuses.known());
  if (verdict === 'submitted') return { id: held.id, status: shown.status }; // an earlier attempt submitted it
  if (verdict === 'unknown') throw new UnknownLetterStatus(held.id, shown.status);
  return submitDraft(api, { id: held.id, draftStatus: held.draftStatus }, partsFor(shown, input), input, deps);
}

/**
 * GET of a draft of ours. Right after our own new draft (`fresh`), a 404 is an API reading from
 * a replica that has not seen it yet: retryable, not a letter gone.
 */
async function readBack(api: LetterApi, id: string, fresh: boolean, signal: AbortSignal): Promise<LetterView> {
  try {
    return await api.getLetter(id, signal);
  } catch (err) {
    if (!fresh || !(err instanceof SenderApiError) || err.statusCode !== 404 || err.kind === 'retryable') throw err;
    throw new SenderApiError({ ...err, kind: 'retryable', reason: `draft ${id} is not readable yet` }, { cause: err });
  }
}

/** The draft's documents by id when it shows the same PDFs (no second upload), otherwise the PDFs. */
function partsFor(shown: LetterView, input: SubmitInput): SubmitBody['parts'] {
  const sameDocuments = shown.parts !== undefined && shown.parts.map((p) => p.sha256).join() === input.pdfSha256s.join();
  return sameDocuments ? (shown.parts ?? []).map((p) => ({ id: p.id })) : input.letter.parts;
}

/** Submits the draft; a submit refused because another attempt got there first counts when the letter left the draft state. */
async function submitDraft(
  api: LetterApi,
  draft: { readonly id: string; readonly draftStatus: string | undefined },
  parts: SubmitBody['parts'],
  input: SubmitInput,
  deps: Deps,
): Promise<SubmittedLetter> {
  const { signal } = deps;
  try {
    const answer = await api.submit(draft.id, { ...input.letter, parts }, signal);
    await deps.statuses.learnSubmitted(answer.status);
    return { id: draft.id, status: answer.status };
  } catch (err) {
    // A submit that raced another attempt is refused as InvalidData: the letter's status decides.
    if (!deps.isInvalidData(err)) throw err;
    const shown = await api.getLetter(draft.id, signal);
    const verdict = judgeStatus(shown.status, draft.draftStatus ?? LEGACY_DRAFT_STATUS, await deps.statuses.known());
    if (verdict === 'draft') throw err; // still a draft: the letter itself was refused
    if (verdict === 'unknown') throw new UnknownLetterStatus(draft.id, shown.status);
    return { id: draft.id, status: shown.status };
  }
}

/** The recorded letter, or a draft an earlier attempt created but could not record. */
async function adoptEarlierDraft(api: LetterApi, checkpoint: Checkpoint, input: SubmitInput, deps: Deps): Promise<HeldDraft | undefined> {
  const { signal } = deps;
  if (checkpoint.letterId !== undefined) return { id: checkpoint.letterId, draftStatus: checkpoint.draftStatus };
  const requestedAt = checkpoint.draftRequestedAt;
  if (requestedAt === undefined) return undefined;
  const search = await api.findDraft(input.letter, input.pdfSha256s, requestedAt, signal);
  if (search.kind === 'found') {
    // A draft another intake recorded is that intake's (the same subject twice): never shared.
    // Its draft status is what GET shows, as for a draft made now: a listing may name statuses otherwise.
    // No attempt submits a draft it has not recorded, so the status shown now is a draft's.
    for (const draft of search.drafts) {
      const shown = await api.getLetter(draft.id, signal);
      if ((await checkpoint.recordLetterId(draft.id, shown.status)) === 'ok') {
        await deps.statuses.learnDraft(shown.status);
        return { id: draft.id, draftStatus: shown.status, shown };
      }
    }
  }
  if (search.kind !== 'none') await checkpoint.recordStrayDraft({ requestedAt });
  return undefined;
}

async function createDraft(
  api: LetterApi,
  checkpoint: Checkpoint,
  input: SubmitInput,
  deps: Deps,
): Promise<{ readonly draft: { readonly id: string; readonly draftStatus: string }; readonly shown: LetterView }> {
  // Clock skew between us and the API must not hide our own draft: look back a minute.
  await checkpoint.markDraftRequested(deps.clock() - 60_000);
  const draft = await api.saveDraft(input.letter, deps.signal);
  const record = async (draftStatus: string | undefined): Promise<void> => {
    if ((await checkpoint.recordLetterId(draft.id, draftStatus)) === 'taken') {
      throw new Error(`the API answered letter id ${draft.id} for a new draft, but another intake recorded it already`);
    }
  };
  try {
    await deps.statuses.learnDraft(draft.status);
    // The draft status is read where a later attempt reads it: GET, not the draft answer.
    let shown: LetterView;
    try {
      shown = await readBack(api, draft.id, true, deps.signal);
    } catch (err) {
      // The draft exists: its id is recorded before the error goes on, so a retry submits it.
      await record(undefined);
      throw err;
    }
    await record(shown.status);
    await deps.statuses.learnDraft(shown.status);
    return { draft: { id: draft.id, draftStatus: shown.status }, shown };
  } catch (err) {
    // Lost the intake while the draft was made: it is never submitted, and the record says so.
    if (err instanceof OwnershipLost) await checkpoint.recordStrayDraft({ letterId: draft.id });
    throw err;
  }
}
