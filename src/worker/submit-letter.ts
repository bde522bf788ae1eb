// Exactly-once letter creation (docs/design.md §3, §13): draft → read back → checkpoint the letter
// id → submit → verify. The PDFs are uploaded with the draft; the submit refers to them by id when
// the read-back shows its documents (the contract does not promise it: otherwise they are uploaded
// again).
//
// Status names decide two things only, and the contract names none of them: the status `GET`
// shows for our new draft (recorded with the letter id as `draftStatus`) is the draft state. The
// draft answer's own status is not used: an API may answer an operation status there ("Created")
// or a state the letter leaves at once, and a comparison with it would end an intake submitted
// while its letter is still a draft. A draft this attempt made is submitted without a status
// check; a held one is submitted only while it shows exactly its draft status; any other status,
// known or not, means it has left the draft state (an earlier attempt submitted it) and the intake
// ends submitted with that status shown. A 2xx to our submit ends it submitted too.
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
import { OwnershipLost } from '../errors.js';
import type { StrayDraft } from '../intake/record.js';
import type { LetterDraft } from './decide.js';

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
  /** Records the letter id and its draft status; 'taken' when another intake recorded that letter. */
  recordLetterId(letterId: string, draftStatus: string): Promise<'ok' | 'taken'>;
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
}

type Deps = { readonly clock: () => number; readonly signal: AbortSignal; readonly isInvalidData: (err: unknown) => boolean };

export async function submitExactlyOnce(api: LetterApi, checkpoint: Checkpoint, input: SubmitInput, deps: Deps): Promise<SubmittedLetter> {
  const { signal } = deps;
  const held = await adoptEarlierDraft(api, checkpoint, input, signal);
  // Made just now, a draft by definition: its read-back gives the documents' ids, no decision.
  if (held === undefined) {
    const made = await createDraft(api, checkpoint, input, deps);
    return submitDraft(api, made.draft, partsFor(made.shown, input), input, deps);
  }
  const shown = await api.getLetter(held.id, signal);
  if (held.draftStatus === undefined) {
    // A record from before draft statuses were recorded: no status shown now is evidence, so it
    // is submitted, and the API's refusal of a letter that is no longer a draft decides.
    return submitDraft(api, { id: held.id, draftStatus: LEGACY_DRAFT_STATUS }, partsFor(shown, input), input, deps);
  }
  if (shown.status !== held.draftStatus) return { id: held.id, status: shown.status }; // an earlier attempt submitted it
  return submitDraft(api, { id: held.id, draftStatus: held.draftStatus }, partsFor(shown, input), input, deps);
}

/** The draft's documents by id when it shows the same PDFs (no second upload), otherwise the PDFs. */
function partsFor(shown: LetterView, input: SubmitInput): SubmitBody['parts'] {
  const sameDocuments = shown.parts !== undefined && shown.parts.map((p) => p.sha256).join() === input.pdfSha256s.join();
  return sameDocuments ? (shown.parts ?? []).map((p) => ({ id: p.id })) : input.letter.parts;
}

/** Submits the draft; a submit refused because another attempt got there first counts when the letter left the draft state. */
async function submitDraft(
  api: LetterApi,
  draft: { readonly id: string; readonly draftStatus: string },
  parts: SubmitBody['parts'],
  input: SubmitInput,
  deps: Deps,
): Promise<SubmittedLetter> {
  const { signal } = deps;
  try {
    const answer = await api.submit(draft.id, { ...input.letter, parts }, signal);
    return { id: draft.id, status: answer.status };
  } catch (err) {
    // A submit that raced another attempt is refused as InvalidData: the letter's status decides.
    if (!deps.isInvalidData(err)) throw err;
    const shown = await api.getLetter(draft.id, signal);
    if (shown.status === draft.draftStatus) throw err; // still a draft: the letter itself was refused
    return { id: draft.id, status: shown.status };
  }
}

/** The recorded letter, or a draft an earlier attempt created but could not record. */
async function adoptEarlierDraft(
  api: LetterApi,
  checkpoint: Checkpoint,
  input: SubmitInput,
  signal: AbortSignal,
): Promise<HeldDraft | undefined> {
  if (checkpoint.letterId !== undefined) return { id: checkpoint.letterId, draftStatus: checkpoint.draftStatus };
  const requestedAt = checkpoint.draftRequestedAt;
  if (requestedAt === undefined) return undefined;
  const search = await api.findDraft(input.letter, input.pdfSha256s, requestedAt, signal);
  if (search.kind === 'found') {
    // A draft another intake recorded is that intake's (the same subject twice): never shared.
    for (const draft of search.drafts) {
      if ((await checkpoint.recordLetterId(draft.id, draft.status)) === 'ok') return { id: draft.id, draftStatus: draft.status };
    }
  }
  if (search.kind !== 'none') await checkpoint.recordStrayDraft({ requestedAt });
  return undefined;
}

async function createDraft(
  api: LetterApi,
  checkpoint: Checkpoint,
  input: SubmitInput,
  deps: { readonly clock: () => number; readonly signal: AbortSignal },
): Promise<{ readonly draft: { readonly id: string; readonly draftStatus: string }; readonly shown: LetterView }> {
  // Clock skew between us and the API must not hide our own draft: look back a minute.
  await checkpoint.markDraftRequested(deps.clock() - 60_000);
  const draft = await api.saveDraft(input.letter, deps.signal);
  try {
    // The draft status is read where a later attempt reads it: GET, not the draft answer.
    const shown = await api.getLetter(draft.id, deps.signal);
    if ((await checkpoint.recordLetterId(draft.id, shown.status)) === 'taken') {
      throw new Error(`the API answered letter id ${draft.id} for a new draft, but another intake recorded it already`);
    }
    return { draft: { id: draft.id, draftStatus: shown.status }, shown };
  } catch (err) {
    // Lost the intake while the draft was made: it is never submitted, and the record says so.
    if (err instanceof OwnershipLost) await checkpoint.recordStrayDraft({ letterId: draft.id });
    throw err;
  }
}
