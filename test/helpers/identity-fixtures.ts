// The identity fixtures: one letter as its sender's application wrote it, and what relays and
// resends make of it. Built in code and signed with the fixture keys (fixtures/keys/), every
// byte fixed, so each variant differs from the original only in what its name says.
import { join } from 'node:path';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { loadKeys, SIGNERS, type Signer } from '../../fixtures/keys.js';
import { attachmentPart, message, multipartBody, textPart } from '../../fixtures/mime.js';
import { buildPdf } from '../../fixtures/pdf.js';
import { FIXTURE_DIR } from './gateway.js';

const keys = loadKeys(join(FIXTURE_DIR, 'keys'));
const SIGN_TIME = new Date('2026-11-02T08:00:05Z');
const BOUNDARY = 'identity-fixture-boundary';
/** The fields the original's signature covers; Subject is left out by the unsigned-Subject variant. */
const SIGNED = ['From', 'To', 'Subject', 'Date', 'Message-ID', 'MIME-Version', 'Content-Type'];

export const LETTER = {
  subject: 'Your water bill for November 2026',
  date: 'Mon, 02 Nov 2026 08:00:00 +0000',
  messageId: '<identity-fixture-1@acme.example>',
  text: 'Dear customer,\n\nyour bill for November is attached.\nAmount due: 17.50 EUR\n\nAcme Utilities\n',
  pdf: buildPdf('Water bill, November 2026: 17.50 EUR'),
} as const;

interface Unsigned {
  readonly subject?: string;
  readonly date?: string;
  readonly pdf?: Buffer;
}

/** The message as the application wrote it, before any signature or trace field. */
export function unsignedLetter(change: Unsigned = {}): string {
  return message(
    [
      'From: Acme Utilities <letters@acme.example>',
      'To: letters@intake.example',
      `Subject: ${change.subject ?? LETTER.subject}`,
      `Date: ${change.date ?? LETTER.date}`,
      `Message-ID: ${LETTER.messageId}`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${BOUNDARY}"`,
    ],
    multipartBody(BOUNDARY, [
      textPart(LETTER.text),
      attachmentPart({ contentType: 'application/pdf', fileName: 'water-bill.pdf', data: change.pdf ?? LETTER.pdf }),
    ]),
  );
}

export interface Signing {
  readonly signer: Signer;
  readonly canonicalization: 'relaxed/relaxed' | 'simple/simple';
  readonly fields?: readonly string[];
}

/** DKIM-Signature fields for `raw`, one per signing, to put in front of it. */
export async function signatures(raw: string, signings: readonly Signing[]): Promise<string> {
  let out = '';
  for (const s of signings) {
    const { signatures: header, errors } = await dkimSign(raw, {
      canonicalization: s.canonicalization,
      signTime: SIGN_TIME,
      headerList: [...(s.fields ?? SIGNED)],
      signatureData: [{ signingDomain: s.signer.domain, selector: s.signer.selector, privateKey: keys[s.signer.key].privatePem }],
    });
    if (errors.length > 0 || header === '') throw new Error(`signing failed: ${JSON.stringify(errors)}`);
    out += header;
  }
  return out;
}

const ORIGINAL_SIGNING: Signing = { signer: SIGNERS.acmeRsa, canonicalization: 'relaxed/relaxed' };
const RECEIVED_BY_APP_HOST = [
  'Received: from app1.acme.example (app1.acme.example [10.0.0.11])\r\n\tby mta.acme.example with ESMTP id 4F1A; Mon, 02 Nov 2026 08:00:06 +0000',
];

/** A variant: its name, the bytes the gateway receives, and whether it is the same letter as the original. */
export interface IdentityFixture {
  readonly name: string;
  readonly raw: Buffer;
  readonly sameLetter: boolean;
}

export async function identityFixtures(): Promise<{ original: Buffer; variants: IdentityFixture[] }> {
  const letter = unsignedLetter();
  const signedBy = async (raw: string, signings: readonly Signing[], received = RECEIVED_BY_APP_HOST) =>
    Buffer.from(received.map((r) => `${r}\r\n`).join('') + (await signatures(raw, signings)) + raw, 'latin1');
  const original = await signedBy(letter, [ORIGINAL_SIGNING]);
  // The unsigned-Subject variant: a signature that leaves Subject out, and Subject changed after it.
  const withoutSubject = SIGNED.filter((f) => f !== 'Subject');
  const unsignedSubjectSigned = await signatures(letter, [{ ...ORIGINAL_SIGNING, fields: withoutSubject }]);
  const changedPdf = Buffer.from(LETTER.pdf);
  changedPdf[changedPdf.indexOf('17.50')] = '2'.charCodeAt(0); // "27.50": one byte of the PDF
  return {
    original,
    variants: [
      {
        name: 'a relay signs it again (c=simple/simple, another selector)',
        raw: await signedBy(letter, [{ signer: SIGNERS.acmeEd25519, canonicalization: 'simple/simple' }]),
        sameLetter: true,
      },
      {
        name: 'two aligned signatures',
        raw: await signedBy(letter, [ORIGINAL_SIGNING, { signer: SIGNERS.acmeEd25519, canonicalization: 'relaxed/relaxed' }]),
        sameLetter: true,
      },
      {
        name: 'another Received chain (another outbound host, one more hop)',
        raw: await signedBy(
          letter,
          [ORIGINAL_SIGNING],
          [
            'Received: from mta2.acme.example (mta2.acme.example [10.0.1.2])\r\n\tby out.acme.example with ESMTPS id 77C0; Mon, 02 Nov 2026 08:09:41 +0000',
            'Received: from app2.acme.example (app2.acme.example [10.0.0.12])\r\n\tby mta2.acme.example with ESMTP id 9B3E; Mon, 02 Nov 2026 08:09:40 +0000',
          ],
        ),
        sameLetter: true,
      },
      {
        name: 'a changed Subject the signature does not cover',
        raw: Buffer.from(
          RECEIVED_BY_APP_HOST.map((r) => `${r}\r\n`).join('') +
            unsignedSubjectSigned +
            letter.replace(`Subject: ${LETTER.subject}`, 'Subject: Your water bill for November 2026 (corrected)'),
          'latin1',
        ),
        sameLetter: false,
      },
      { name: 'one changed PDF byte', raw: await signedBy(unsignedLetter({ pdf: changedPdf }), [ORIGINAL_SIGNING]), sameLetter: false },
      {
        name: 'a changed Date',
        raw: await signedBy(unsignedLetter({ date: 'Mon, 02 Nov 2026 08:15:00 +0000' }), [ORIGINAL_SIGNING]),
        sameLetter: false,
      },
    ],
  };
}
