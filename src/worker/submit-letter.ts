// Exactly-once letter creation (docs/design.md §3): draft → checkpoint the letter id → submit → verify.
// The PDFs are uploaded once, with the draft; the submit refers to them by id.
//
// The checkpoint is what makes a retry safe: an attempt that finds a letter id never creates a
// second draft. The one gap a checkpoint cannot close (the process dies after the API created
// the draft but before the id was recorded) is closed by a marker written before the draft is
// requested: a retry that finds the marker but no id first looks for that draft among the
// sender's drafts (same title, description and PDFs, created after the marker) and adopts it.
import type { LetterDraft } from './decide.js';

/** Statuses at or beyond submission: the letter exists and an operator will review it. */
const SUBMITTED_STATUSES = new Set(['PendingApproval', 'Approved', 'Sending', 'Sent', 'Rejected']);

export interface LetterSummary {
  readonly id: string;
  readonly status: string;
}

export interface LetterView extends LetterSummary {
  /** The letter's documents, in order. */
  readonly parts: readonly { readonly id: string; readonly sha256: string }[];
}

/** The Sender API as the worker needs it, already bound to one sender's session. */
export interface LetterApi {
  saveDraft(letter: LetterDraft, signal: AbortSignal): Promise<LetterSummary>;
  submit(id: string, letter: SubmitBody, signal: AbortSignal): Promise<LetterSummary>;
  getLetter(id: string, signal: AbortSignal): Promise<LetterView>;
  /** A draft of this sender matching the letter and created at or after `since`, if any. */
  findDraft(letter: LetterDraft, pdfSha256s: readonly string[], since: number, signal: AbortSignal): Promise<string | undefined>;
}

/** The job's durable progress; both callbacks must be persisted before they resolve. */
export interface Checkpoint {
  readonly letterId: string | undefined;
  readonly draftRequestedAt: number | undefined;
  markDraftRequested(at: number): Promise<void>;
  recordLetterId(letterId: string): Promise<void>;
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
  let letterId = checkpoint.letterId;
  if (letterId === undefined && checkpoint.draftRequestedAt !== undefined) {
    letterId = await api.findDraft(input.letter, input.pdfSha256s, checkpoint.draftRequestedAt, signal);
    if (letterId !== undefined) await checkpoint.recordLetterId(letterId);
  }
  if (letterId === undefined) {
    // Clock skew between us and the API must not hide our own draft: look back a minute.
    await checkpoint.markDraftRequested(deps.clock() - 60_000);
    const draft = await api.saveDraft(input.letter, signal);
    letterId = draft.id;
    await checkpoint.recordLetterId(letterId);
  }
  // The draft holds the PDFs already: keep them by id instead of uploading them a second time.
  const draft = await api.getLetter(letterId, signal);
  if (SUBMITTED_STATUSES.has(draft.status)) return draft; // an earlier attempt submitted it
  const sameDocuments = draft.parts.map((p) => p.sha256).join() === input.pdfSha256s.join();
  const parts = sameDocuments ? draft.parts.map((p) => ({ id: p.id })) : input.letter.parts;
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
