// What a letter's status says, read rather than guessed (docs/design.md §10). The contract names
// the statuses of a submitted letter (PendingApproval, Approved, Sending, Sent) and none for a
// draft; a real API may name its own. So a status other than the draft status recorded for the
// letter is not by itself proof that it was submitted: it may be a state a draft passes through,
// a draft a refused submit moved, or the same draft state under another name. A status proves a
// submit when our own submit was answered with it before (learned per API), or when it is one
// of the contract's four; a status any draft answer or draft read-back of ours ever showed never
// proves one (so a 2xx submit that leaves a letter in a draft status teaches nothing). Anything
// else is unknown: the job reads it again after its backoff, and its last attempt fails the
// intake with UnknownLetterStatus (replayable, an operator alerted), never claiming success.

/** The contract's statuses of a submitted letter. */
export const CONTRACT_SUBMITTED_STATUSES: ReadonlySet<string> = new Set(['PendingApproval', 'Approved', 'Sending', 'Sent']);

/** What the worker has seen of one Sender API's statuses. */
export interface KnownStatuses {
  /** Statuses a draft answer or a draft's read-back showed. */
  readonly drafts: ReadonlySet<string>;
  /** Statuses our own 2xx submits were answered with. */
  readonly submitted: ReadonlySet<string>;
}

/** The statuses the worker learns, per Sender API, kept where every worker reads them (status-book.ts). */
export interface LetterStatuses {
  known(): Promise<KnownStatuses>;
  /** A status a draft of ours showed (its draft answer or its read-back). Never rejects. */
  learnDraft(status: string | undefined): Promise<void>;
  /** The status our own 2xx submit was answered with. Never rejects. */
  learnSubmitted(status: string | undefined): Promise<void>;
}

export type StatusVerdict = 'draft' | 'submitted' | 'unknown';

/** What `shown` says of a letter whose recorded draft status is `draftStatus` (undefined: not recorded). */
export function judgeStatus(shown: string, draftStatus: string | undefined, known: KnownStatuses): StatusVerdict {
  if (shown === draftStatus || known.drafts.has(shown)) return 'draft';
  if (known.submitted.has(shown) || CONTRACT_SUBMITTED_STATUSES.has(shown)) return 'submitted';
  return 'unknown';
}

/** Statuses kept in memory only (tests, and the CLI's one-off runs). */
export function memoryLetterStatuses(): LetterStatuses & { readonly drafts: Set<string>; readonly submitted: Set<string> } {
  const drafts = new Set<string>();
  const submitted = new Set<string>();
  return {
    drafts,
    submitted,
    known: async () => ({ drafts, submitted }),
    learnDraft: async (status) => {
      if (status === undefined) return;
      drafts.add(status);
      submitted.delete(status);
    },
    learnSubmitted: async (status) => {
      if (status !== undefined && !drafts.has(status)) submitted.add(status);
    },
  };
}
