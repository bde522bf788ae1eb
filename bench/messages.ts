// The benchmark's messages: letter-shaped, DKIM-signed by acme.example (fixtures/keys, selector
// rsa2048 as in fixtures/zone.json), sent from 127.0.0.1 with envelope bounce@acme.example so SPF
// passes. Three sizes: 10 KB of text with a tiny PDF, a 1 MB PDF and a 10 MB PDF (≈ 13.7 MB on
// the wire). Built in code on every run, never committed.
//
// One signature serves every copy of a size: Message-ID is left out of the signed header list
// (RFC 6376 §5.4 requires only From), so each copy gets its own Message-ID, and therefore its own
// intake, while the verifier still does the full work (body hash, header hash, RSA verify).

import { join } from 'node:path';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { loadKeys } from '../fixtures/keys.js';
import { attachmentPart, message, multipartBody, textPart } from '../fixtures/mime.js';
import { buildPdf } from '../fixtures/pdf.js';
import { paddedPdf } from './padded-pdf.js';

export const SIZE_NAMES = ['10KB', '1MB', '10MB'] as const;
export type SizeName = (typeof SIZE_NAMES)[number];

export const BENCH_ENVELOPE = {
  helo: 'mta.acme.example',
  mailFrom: 'bounce@acme.example',
  rcptTo: 'letters@intake.example',
  from: 'letters@acme.example',
} as const;

/** A message ready for the wire: a small per-copy head and one shared, dot-stuffed body. */
export interface BenchMessage {
  readonly size: SizeName;
  /** The header section for copy `seq`, its Message-ID unique to (runId, seq). */
  head(seq: number): Buffer;
  /** The signed header fields and the body after them, dot-stuffed, ending in CRLF.CRLF. */
  readonly tail: Buffer;
  /** Bytes of one message as sent in DATA (before dot-stuffing). */
  readonly wireBytes: number;
}

export function isSizeName(value: string): value is SizeName {
  return (SIZE_NAMES as readonly string[]).includes(value);
}

/** Human label for tables. */
export function sizeLabel(size: SizeName): string {
  return { '10KB': '10 KB text + tiny PDF', '1MB': '1 MB PDF', '10MB': '10 MB PDF' }[size];
}

/** Message-ID of copy `seq` of a run: the bench recomputes intake ids from it. */
export function messageIdOf(runId: string, size: SizeName, seq: number): string {
  return `<bench-${runId}-${size}-${seq}@acme.example>`;
}

const SIGNED_FIELDS = ['From', 'To', 'Subject', 'Date', 'MIME-Version', 'Content-Type'];
const BOUNDARY = '=_bench_boundary';
const KEYS_DIR = join(import.meta.dirname, '..', 'fixtures', 'keys');

const PARAGRAPH =
  'Dear customer, this letter confirms the readings of your meter for the past quarter and the ' +
  'amount due. Please keep it for your records; the attached PDF is the legally binding copy.\n';

export async function buildBenchMessage(size: SizeName, runId: string): Promise<BenchMessage> {
  const { text, pdf } = contentOf(size);
  const headers = [
    'From: Acme Utilities <letters@acme.example>',
    'To: <letters@intake.example>',
    `Subject: Benchmark letter (${size})`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${BOUNDARY}"`,
  ];
  const raw = message(
    headers,
    multipartBody(BOUNDARY, [
      textPart(text),
      attachmentPart({ contentType: 'application/pdf', fileName: `letter-${size}.pdf`, data: pdf }),
    ]),
  );
  const key = loadKeys(KEYS_DIR)['acme-rsa2048'];
  const { signatures, errors } = await dkimSign(raw, {
    canonicalization: 'relaxed/relaxed',
    signTime: new Date(),
    headerList: SIGNED_FIELDS,
    signatureData: [{ signingDomain: 'acme.example', selector: 'rsa2048', privateKey: key.privatePem, algorithm: 'rsa-sha256' }],
  });
  if (errors.length > 0 || signatures === '') throw new Error(`signing failed: ${JSON.stringify(errors)}`);
  const signatureBlock = Buffer.from(signatures, 'utf8');
  const tail = Buffer.concat([dotStuff(Buffer.from(raw, 'utf8')), Buffer.from('.\r\n', 'latin1')]);
  const sampleHead = Buffer.concat([signatureBlock, Buffer.from(`Message-ID: ${messageIdOf(runId, size, 0)}\r\n`)]);
  return {
    size,
    head: (seq) => Buffer.concat([signatureBlock, Buffer.from(`Message-ID: ${messageIdOf(runId, size, seq)}\r\n`, 'latin1')]),
    tail,
    wireBytes: sampleHead.length + Buffer.byteLength(raw),
  };
}

function contentOf(size: SizeName): { text: string; pdf: Buffer } {
  switch (size) {
    case '10KB':
      return { text: PARAGRAPH.repeat(Math.ceil(10_000 / PARAGRAPH.length)), pdf: buildPdf('Acme Utilities - benchmark letter') };
    case '1MB':
      return { text: PARAGRAPH, pdf: paddedPdf(1_000_000) };
    case '10MB':
      return { text: PARAGRAPH, pdf: paddedPdf(10_000_000) };
  }
}

/** The message as the listener stores it: the DATA bytes without dot-stuffing and the final dot. */
export function storedBody(message: BenchMessage): Buffer {
  const text = message.tail.subarray(0, message.tail.length - 3).toString('latin1');
  return Buffer.from(text.replaceAll('\r\n..', '\r\n.'), 'latin1');
}

/** RFC 5321 §4.5.2: a line starting with "." gets one more "."; the body must end in CRLF. */
export function dotStuff(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  let lineStart = 0;
  while (lineStart < data.length) {
    if (data[lineStart] === 0x2e) {
      parts.push(data.subarray(from, lineStart), Buffer.from('.', 'latin1'));
      from = lineStart;
    }
    const eol = data.indexOf(0x0a, lineStart);
    if (eol === -1) break;
    lineStart = eol + 1;
  }
  parts.push(data.subarray(from));
  const stuffed = Buffer.concat(parts);
  return stuffed.subarray(-2).toString('latin1') === '\r\n' ? stuffed : Buffer.concat([stuffed, Buffer.from('\r\n', 'latin1')]);
}
