// A PDF the letter carries, as the worker took it from the message: what the PDF checks read and
// the Sender API receives.
export interface PdfDocument {
  readonly fileName: string;
  readonly content: Buffer;
  readonly sha256: string;
}
