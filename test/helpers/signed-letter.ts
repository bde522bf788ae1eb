// Letters signed on demand with the fixture keys (acme.example, selector rsa2048), for tests
// that need many distinct messages: each has its own Subject and Message-ID.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { loadKeys } from '../../fixtures/keys.js';
import { attachmentPart, htmlPart, message, multipartBody, textPart } from '../../fixtures/mime.js';
import { buildPdf } from '../../fixtures/pdf.js';
import { FIXTURE_DIR } from './gateway.js';

const keys = loadKeys(join(FIXTURE_DIR, 'keys'));

export interface LetterSpec {
  readonly title: string;
  readonly text?: string;
  /** An HTML body instead of the text one. */
  readonly html?: string;
  readonly pdf?: Buffer;
  readonly from?: string;
  /** null: no Message-ID header at all. */
  readonly messageId?: string | null;
  /** Further header lines, e.g. "Auto-Submitted: auto-generated". */
  readonly headers?: readonly string[];
  /** Signed and sent as Globex (globex.example, selector rsa2048) instead of Acme. */
  readonly globex?: boolean;
}

export async function signedLetter(spec: LetterSpec): Promise<Buffer> {
  const boundary = `b-${randomUUID()}`;
  const raw = message(
    [
      `From: ${spec.from ?? (spec.globex === true ? 'Globex <letters@globex.example>' : 'Acme Utilities <letters@acme.example>')}`,
      'To: letters@intake.example',
      `Subject: ${spec.title}`,
      `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
      ...(spec.messageId === null ? [] : [`Message-ID: ${spec.messageId ?? `<${randomUUID()}@acme.example>`}`]),
      ...(spec.headers ?? []),
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
    ],
    multipartBody(boundary, [
      spec.html === undefined ? textPart(spec.text ?? `Dear customer,\nthis is "${spec.title}".\n`) : htmlPart(spec.html),
      attachmentPart({ contentType: 'application/pdf', fileName: 'letter.pdf', data: spec.pdf ?? buildPdf(spec.title) }),
    ]),
  );
  const { signatures, errors } = await dkimSign(raw, {
    canonicalization: 'relaxed/relaxed',
    signTime: new Date(),
    signatureData: [
      spec.globex === true
        ? { signingDomain: 'globex.example', selector: 'rsa2048', privateKey: keys['globex-rsa2048'].privatePem }
        : { signingDomain: 'acme.example', selector: 'rsa2048', privateKey: keys['acme-rsa2048'].privatePem },
    ],
  });
  if (errors.length > 0) throw new Error(`signing failed: ${JSON.stringify(errors)}`);
  return Buffer.from(signatures + raw, 'utf8');
}
