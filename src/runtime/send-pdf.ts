// `letter-intake send --pdf FILE.pdf [--subject S] [--body TEXT]`: a letter of one's own for the
// demo. It composes a message from the demo sender with the PDF attached, signs it with the demo
// key (DKIM, relaxed/relaxed) and sends it over SMTP, so it passes SPF, DKIM and alignment as a
// real sender's letter does; the reply is printed as `send` prints it.
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { DEMO_SENDER } from './demo-sender.js';
import { type SendOutcome, sendOverSmtp } from './smtp-send.js';

export interface PdfLetter {
  readonly host: string;
  readonly port: number;
  readonly to: string;
  readonly pdfFile: string;
  readonly subject?: string | undefined;
  readonly body?: string | undefined;
}

/** The PDF's bytes, or a sentence saying why it cannot be sent as one. */
export async function readPdf(file: string): Promise<Buffer | string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    if (code === 'ENOENT') return `${file}: no such file`;
    if (code === 'EISDIR') return `${file}: is a directory, not a PDF`;
    return `${file}: cannot be read (${err instanceof Error ? err.message : String(err)})`;
  }
  // ISO 32000-1 §7.5.2: a PDF starts with its header; the gateway refuses anything else as NotAPdf.
  if (!bytes.subarray(0, 1024).toString('latin1').includes('%PDF-')) return `${file}: not a PDF (no %PDF- header)`;
  return bytes;
}

export async function sendPdfLetter(letter: PdfLetter, pdf: Buffer): Promise<SendOutcome> {
  const privateKey = await readFile(DEMO_SENDER.keyFile, 'utf8');
  const fileName = basename(letter.pdfFile);
  return sendOverSmtp(
    {
      host: letter.host,
      port: letter.port,
      dkim: { domainName: DEMO_SENDER.dkimDomain, keySelector: DEMO_SENDER.dkimSelector, privateKey },
    },
    {
      from: DEMO_SENDER.from,
      to: letter.to,
      envelope: { from: DEMO_SENDER.address, to: [letter.to] },
      subject: letter.subject ?? fileName.replace(/\.pdf$/i, ''),
      text: letter.body ?? `Dear customer,\nplease find ${fileName} attached.\n`,
      attachments: [{ filename: fileName, content: pdf, contentType: 'application/pdf' }],
    },
  );
}
