// The PDF rules (docs/sender-policy.md): what the inspector found in, a verdict out. Pure.
import type { RejectionReason } from '../errors.js';
import type { PdfFacts } from './facts.js';

export type PdfChecksMode = 'strict' | 'off';

export interface PdfPolicy {
  /** The sender may send AcroForm fields (never JavaScript): `allowPdfForms` in the directory. */
  readonly allowForms: boolean;
}

export type PdfRejection = Extract<RejectionReason, 'PdfDamaged' | 'PdfPasswordProtected' | 'PdfActiveContent'>;

export type PdfVerdict = { readonly ok: true } | { readonly ok: false; readonly reasonCode: PdfRejection; readonly reason: string };

/** `name` is how the sender knows the file, e.g. `"statement.pdf"`. */
export function judgePdf(facts: PdfFacts, policy: PdfPolicy, name: string): PdfVerdict {
  switch (facts.kind) {
    case 'password':
      return reject(
        'PdfPasswordProtected',
        `The PDF ${name} needs a password to open; send it without a user password (permission restrictions are fine).`,
      );
    case 'damaged':
      return reject('PdfDamaged', `The PDF ${name} cannot be read as a PDF (${facts.detail}); a viewer could not show it either.`);
    case 'too-complex':
      return reject(
        'PdfDamaged',
        `The PDF ${name} is too complex to check: reading it went past the gateway's ${facts.limit === 'time' ? 'time' : 'memory'} limit.`,
      );
    case 'opened': {
      const found = [
        ...facts.javascript.map((p) => `JavaScript (${p})`),
        ...facts.launch.map((p) => `a Launch action (${p})`),
        ...facts.embeddedFiles.map((p) => `an embedded file (${p})`),
        ...(facts.xfa ? ['an XFA form'] : []),
        ...(facts.formFields && !policy.allowForms ? ['interactive form fields'] : []),
      ];
      if (found.length === 0) return { ok: true };
      const shown = found.length > 4 ? [...found.slice(0, 4), `${found.length - 4} more`] : found;
      return reject('PdfActiveContent', `The PDF ${name} carries active content, which letters may not: ${shown.join(', ')}.`);
    }
  }
}

function reject(reasonCode: PdfRejection, reason: string): PdfVerdict {
  return { ok: false, reasonCode, reason };
}
