// Exactly-once letter creation (docs/design.md §3, §13): draft → checkpoint the letter id → submit → verify.
// The PDFs are uploaded with the draft; the submit refers to them by id when a read-back of the
// draft shows its documents (the contract does not promise it: otherwise they are uploaded again).
// A draft this attempt has just made is known to be a Draft from its own answer: when its PDFs
// are small, uploading them again costs less than the read-back, which is then skipped.
//
// The checkpoint is what makes a retry safe: an attempt that finds a letter id never creates a
// second draft, and only the intake's current owner can record one, once (a worker that lost
// the intake cannot, so it never submits the draft it made: that draft is recorded as stray).
// The gap a checkpoint cannot close (the process dies after the API created the draft but before
// the id was recorded) is closed by a marker written before the draft is requested: a retry
// that finds the marker but no id first looks for that draft among the sender's drafts (same
// title, description and PDFs, created after the marker) and adopts it. When the API offers no
// way to look, the retry creates a new draft and records that the earlier one may be stray: a
// stray draft is harmless, a second submitted letter is not.
import { OwnershipLost } from '../errors.js';
import type { StrayDraft } from '../intake/record.js';
import type { LetterDraft } from './decide.js';

/** Statuses at or beyond submission: the letter exists and an operator will review it. */
const SUBMITTED_STATUSES = new Set(['PendingApproval', 'Approved', 'Sending', 'Sent', 'Rejected']);

/**
 * Up to this many PDF bytes a fresh draft is submitted with its PDFs uploaded again rather than
 * read back for their ids. Measured against the sandbox (worker CPU): a read-back costs ~0.45 ms,
 * uploading again adds ~0.07 ms for 10 KB, ~0.3 ms for 100 KB, ~0.7 ms for 300 KB.
 */
export const REUPLOAD_UP_TO_BYTES = 128 * 1024;

export interface LetterSummary {
  readonly id: string;
  readonly status: string;
}

export interface LetterView extends LetterSummary {
  /** The letter's documents, in order, when the API shows them (the contract does not promise it). */
  readonly parts?: readonly { readonly id: string; readonly sha256: string }[] | undefined;
}

/** What a search among the sender's drafts found; `unsearchable` when the API lists no drafts. */
export type DraftSearch = { readonly kind: 'found'; readonly id: string } | { readonly kind: 'none' } | { readonly kind: 'unsearchable' };

/** The Sender API as the worker needs it, already bound to one sender's session. */
export interface LetterApi {
  saveDraft(letter: LetterDraft, signal: AbortSignal): Promise<LetterSummary>;
  submit(id: string, letter: SubmitBody, signal: AbortSignal): Promise<LetterSummary>;
  getLetter(id: string, signal: AbortSignal): Promise<LetterView>;
  /** A draft of this sender matching the letter and created at or after `since`, if any. */
  findDraft(letter: LetterDraft, pdfSha256s: readonly string[], since: number, signal: AbortSignal): Promise<DraftSearch>;
}

/**
 * The intake's durable progress. The two checkpoint writes must be persisted before they
 * resolve and reject with OwnershipLost when the caller no longer holds the intake (or, for the
 * letter id, when another id is recorded already).
 */
export interface Checkpoint {
  readonly letterId: string | undefined;
  readonly draftRequestedAt: number | undefined;
  markDraftRequested(at: number): Promise<void>;
  recordLetterId(letterId: string): Promise<void>;
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

export async function submitExactlyOnce(
  api: LetterApi,
  checkpoint: Checkpoint,
  input: SubmitInput,
  deps: { readonly clock: () => number; readonly signal: AbortSignal; readonly isInvalidData: (err: unknown) => boolean },
): Promise<LetterSummary> {
  const { signal } = deps;
  let letterId = await adoptEarlierDraft(api, checkpoint, input, signal);
  if (letterId === undefined) {
    const made = await createDraft(api, checkpoint, input, deps);
    // Made just now, and a Draft by its own answer: nothing a read-back could add but the documents' ids.
    if (made.status === 'Draft' && pdfBytes(input.letter) <= REUPLOAD_UP_TO_BYTES) {
      return submitDraft(api, made.id, input.letter.parts, input, deps);
    }
    letterId = made.id;
  }
  // The draft holds the PDFs already: keep them by id instead of uploading them a second time.
  const draft = await api.getLetter(letterId, signal);
  if (SUBMITTED_STATUSES.has(draft.status)) return draft; // an earlier attempt submitted it
  const sameDocuments = draft.parts !== undefined && draft.parts.map((p) => p.sha256).join() === input.pdfSha256s.join();
  const parts = sameDocuments ? (draft.parts ?? []).map((p) => ({ id: p.id })) : input.letter.parts;
  return submitDraft(api, letterId, parts, input, deps);
}

/** Submits the draft; a submit refused because another attempt got there first counts when the letter is submitted. */
async function submitDraft(
  api: LetterApi,
  letterId: string,
  parts: SubmitBody['parts'],
  input: SubmitInput,
  deps: { readonly signal: AbortSignal; readonly isInvalidData: (err: unknown) => boolean },
): Promise<LetterSummary> {
  const { signal } = deps;
  let result: LetterSummary;
  try {
    result = await api.submit(letterId, { ...input.letter, parts }, signal);
  } catch (err) {
    // A submit that raced another attempt is refused as InvalidData: the letter's status decides.
    if (!deps.isInvalidData(err)) throw err;
    result = await api.getLetter(letterId, signal);
    if (!SUBMITTED_STATUSES.has(result.status)) throw err;
  }
  if (!SUBMITTED_STATUSES.has(result.status)) {
    throw new Error(`letter ${letterId} is ${result.status} after submit`);
  }
  return result;
}

/** The recorded letter id, or the draft an earlier attempt created but could not record. */
async function adoptEarlierDraft(
  api: LetterApi,
  checkpoint: Checkpoint,
  input: SubmitInput,
  signal: AbortSignal,
): Promise<string | undefined> {
  if (checkpoint.letterId !== undefined) return checkpoint.letterId;
  const requestedAt = checkpoint.draftRequestedAt;
  if (requestedAt === undefined) return undefined;
  const search = await api.findDraft(input.letter, input.pdfSha256s, requestedAt, signal);
  if (search.kind === 'found') {
    await checkpoint.recordLetterId(search.id);
    return search.id;
  }
  if (search.kind === 'unsearchable') await checkpoint.recordStrayDraft({ requestedAt });
  return undefined;
}

async function createDraft(
  api: LetterApi,
  checkpoint: Checkpoint,
  input: SubmitInput,
  deps: { readonly clock: () => number; readonly signal: AbortSignal },
): Promise<LetterSummary> {
  // Clock skew between us and the API must not hide our own draft: look back a minute.
  await checkpoint.markDraftRequested(deps.clock() - 60_000);
  const draft = await api.saveDraft(input.letter, deps.signal);
  try {
    await checkpoint.recordLetterId(draft.id);
  } catch (err) {
    // Lost the intake while the draft was made: it is never submitted, and the record says so.
    if (err instanceof OwnershipLost) await checkpoint.recordStrayDraft({ letterId: draft.id });
    throw err;
  }
  return draft;
}

function pdfBytes(letter: LetterDraft): number {
  return letter.parts.reduce((sum, part) => sum + part.base64Data.bytes.byteLength, 0);
}
