// What the sandbox answers: the JSON shapes of sessions and letters.
import type { DocumentMeta, StoredLetter } from './letter-store.js';
import type { Session } from './sessions.js';

export interface SessionView {
  readonly sessionId: string;
  readonly senderId: string;
  readonly validUntilUtc: string;
  readonly isValid: true;
}

export interface LetterSummaryView {
  readonly id: string;
  readonly status: string;
  readonly title: string;
  readonly sender: { readonly companyNameEn: string };
}

export interface LetterDetailView extends LetterSummaryView {
  readonly description: string;
  readonly genderTargeting: string;
  readonly createdUtc: string;
  readonly updatedUtc: string;
  /** null until the letter is submitted. */
  readonly submittedUtc: string | null;
  readonly parts: readonly DocumentMeta[];
}

export interface OperatorLetterView extends LetterDetailView {
  readonly senderId: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function sessionView(session: Session): SessionView {
  return { sessionId: session.sessionId, senderId: session.senderId, validUntilUtc: iso(session.validUntilMs), isValid: true };
}

export function summaryView(letter: StoredLetter, companyNameEn: string): LetterSummaryView {
  return { id: letter.id, status: letter.status, title: letter.title, sender: { companyNameEn } };
}

export function detailView(letter: StoredLetter, companyNameEn: string): LetterDetailView {
  return {
    ...summaryView(letter, companyNameEn),
    description: letter.description,
    genderTargeting: letter.genderTargeting,
    createdUtc: iso(letter.createdMs),
    updatedUtc: iso(letter.updatedMs),
    submittedUtc: letter.submittedMs === undefined ? null : iso(letter.submittedMs),
    parts: letter.parts.map((p) => ({ id: p.id, fileName: p.fileName, mimeType: p.mimeType, sizeBytes: p.sizeBytes, sha256: p.sha256 })),
  };
}

export function operatorView(letter: StoredLetter, companyNameEn: string): OperatorLetterView {
  return { ...detailView(letter, companyNameEn), senderId: letter.senderId };
}
