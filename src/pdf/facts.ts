// What the inspector found in one PDF: plain data, so it crosses the thread boundary as it is
// (structured clone) and the rules (judge.ts) stay a pure function of it.

/** Where active content was found, in words a sender can act on ("document open action", "page 2 annotation"). */
export type Places = readonly string[];

export interface OpenedPdf {
  readonly kind: 'opened';
  readonly pages: number;
  /** The header's version, e.g. "1.7". */
  readonly version: string;
  /** The Info dictionary's /Producer, cleaned and cut; undefined when absent. */
  readonly producer: string | undefined;
  /** Encrypted with an empty user password (permissions only): opens without one. */
  readonly encrypted: boolean;
  readonly javascript: Places;
  readonly launch: Places;
  /** Embedded files (names tree, file attachment annotations, portfolios). */
  readonly embeddedFiles: Places;
  readonly xfa: boolean;
  /** Interactive AcroForm fields (signature-only forms do not count). */
  readonly formFields: boolean;
  /**
   * False when the walk for /Launch did not reach the catalog or every page: an encrypted file
   * whose objects sit in encrypted object streams (the walker cannot decrypt them; pdf.js can,
   * but does not report /Launch). JavaScript, attachments and forms are still checked by pdf.js.
   */
  readonly structureWalked: boolean;
}

export type PdfFacts =
  | OpenedPdf
  | { readonly kind: 'password' }
  | { readonly kind: 'damaged'; readonly detail: string }
  /** A parse limit was hit: wall-clock time or memory. */
  | { readonly kind: 'too-complex'; readonly limit: 'time' | 'memory' };
