// Pure rules of the letter lifecycle: which status moves are legal, and how the `parts` of a
// save/submit request map onto the documents a letter already has.
//
//   Draft ──submit──▶ PendingApproval ──approve──▶ Approved ──start-sending──▶ Sending ──mark-sent──▶ Sent
//                                     └─reject───▶ Rejected

export const LETTER_STATUSES = ['Draft', 'PendingApproval', 'Approved', 'Rejected', 'Sending', 'Sent'] as const;
export type LetterStatus = (typeof LETTER_STATUSES)[number];

export type LetterAction = 'submit' | 'approve' | 'reject' | 'start-sending' | 'mark-sent';

const MOVES: Readonly<Record<LetterAction, { readonly from: LetterStatus; readonly to: LetterStatus }>> = {
  submit: { from: 'Draft', to: 'PendingApproval' },
  approve: { from: 'PendingApproval', to: 'Approved' },
  reject: { from: 'PendingApproval', to: 'Rejected' },
  'start-sending': { from: 'Approved', to: 'Sending' },
  'mark-sent': { from: 'Sending', to: 'Sent' },
};

export type Verdict<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** The status after `action`, or why the move is illegal. */
export function nextStatus(current: LetterStatus, action: LetterAction): Verdict<LetterStatus> {
  const move = MOVES[action];
  if (current === move.from) return { ok: true, value: move.to };
  return { ok: false, message: `cannot ${action} a letter in status ${current}; ${action} needs status ${move.from}` };
}

/** Why a letter can no longer be changed, or undefined when it is still a Draft. */
export function whyNotEditable(id: string, status: LetterStatus): string | undefined {
  if (status === 'Draft') return undefined;
  return `letter ${id} is already submitted (status ${status}); only a Draft can be updated or submitted`;
}

export interface KeepPart {
  readonly id: string;
}
export interface UploadPart {
  readonly fileName: string;
  readonly mimeType: string;
  readonly base64Data: string;
}
export type PartRequest = KeepPart | UploadPart;

export type PartStep = { readonly keep: string } | { readonly upload: UploadPart };

/**
 * The parts rules: a part with only `id` keeps that document of the letter; a part with
 * `fileName`, `mimeType` and `base64Data` uploads a new one; documents not referenced are dropped.
 * Keeping a document the letter does not have, or the same one twice, is refused.
 */
export function planParts(existingIds: readonly string[], requested: readonly PartRequest[]): Verdict<PartStep[]> {
  const known = new Set(existingIds);
  const kept = new Set<string>();
  const steps: PartStep[] = [];
  for (const [index, part] of requested.entries()) {
    if (!('id' in part)) {
      steps.push({ upload: part });
      continue;
    }
    if (!known.has(part.id)) {
      return { ok: false, message: `parts.${index}.id: ${part.id} is not a document of this letter` };
    }
    if (kept.has(part.id)) return { ok: false, message: `parts.${index}.id: ${part.id} is listed twice` };
    kept.add(part.id);
    steps.push({ keep: part.id });
  }
  return { ok: true, value: steps };
}
