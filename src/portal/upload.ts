// A letter uploaded on the portal becomes an intake by the same path as e-mail: it is written as a
// MIME message (From: the sender's first registered address, Subject: the title, the description
// as the text body, each PDF an attachment), judged by the message's own rules on the same
// streaming walk the listener uses, spooled to the raw store with its content digest, and handed to
// the same durable acceptance (acceptIntake). The worker then re-checks the rules, runs the deep PDF
// checks and submits exactly once, as for any intake. Only the channel differs: `channel: web`, the
// uploading user recorded, no SMTP envelope and no authentication (the user signed in instead).
//
// handOffUpload is the one place an upload enters the intake path: limits that count intakes by
// any channel hook in here.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import MailComposer from 'nodemailer/lib/mail-composer';
import { IntakeError } from '../errors.js';
import type { Accepted, IncomingMessage } from '../intake/accept.js';
import { withContentDigest } from '../intake/content-digest.js';
import { intakeIdFor } from '../intake/intake-id.js';
import type { RawSpool } from '../intake/raw-spool.js';
import type { NewIntake } from '../intake/record.js';
import { SUBJECT_MAX_BYTES } from '../intake/session-refusals.js';
import { headerBlockOf } from '../mime/header-block.js';
import { startMimeWalk } from '../mime/mime-walk.js';
import { cutUtf8 } from '../net/cut-text.js';
import type { RuleContext } from '../policy/message-rules.js';
import type { Sender } from '../senders/directory.js';
import { brokenRule, refusalFor, settledWalk } from '../smtp/session-rules.js';
import { issuedAtOf } from './form-tokens.js';
import { sha256 } from './keys.js';

export interface UploadDeps {
  /** The durable acceptance the listener uses (acceptIntake with the part's store, queue and markers). */
  readonly accept: (intake: NewIntake, message: IncomingMessage) => Promise<Accepted>;
  readonly spool: () => RawSpool;
  readonly rules: RuleContext;
  /** The processing address the message is written to (the first INBOUND_ADDRESSES entry). */
  readonly processingAddress: string;
  /** The name in the upload's Message-ID. */
  readonly hostname: string;
  readonly maxMessageBytes: number;
  readonly clock: () => number;
}

export interface UploadedPdf {
  readonly fileName: string;
  readonly contentType: string;
  readonly content: Buffer;
}

export interface Upload {
  readonly sender: Sender;
  readonly userEmail: string;
  readonly clientIp: string;
  readonly title: string;
  readonly description: string;
  readonly pdfs: readonly UploadedPdf[];
  /** The one-time form token: the upload's Message-ID, so the same form is the same message. */
  readonly formToken: string;
}

export type UploadOutcome =
  | { readonly kind: 'accepted'; readonly intakeId: string; readonly duplicate: boolean }
  | { readonly kind: 'refused'; readonly reasonCode: string; readonly reason: string };

/**
 * The upload as an RFC 5322 message (nodemailer's composer: the same MIME any mail client writes).
 * The same form sent again makes the same bytes (its Date is the form's, its MIME boundaries come
 * from the form token), so a retry after "try again later" is the same intake, never a second letter.
 */
export async function composeUpload(upload: Upload, deps: Pick<UploadDeps, 'processingAddress' | 'hostname' | 'clock'>): Promise<Buffer> {
  const from = upload.sender.addresses[0] ?? '';
  const composer = new MailComposer({
    from,
    to: deps.processingAddress,
    subject: upload.title,
    text: upload.description,
    date: new Date(issuedAtOf(upload.formToken) ?? deps.clock()),
    baseBoundary: sha256(`boundary:${upload.formToken}`).slice(0, 24),
    messageId: `<portal-${upload.formToken.replace(/[^A-Za-z0-9_-]/g, '')}@${deps.hostname}>`,
    headers: { 'X-Portal-User': upload.userEmail },
    attachments: upload.pdfs.map((p) => ({ filename: p.fileName, content: p.content, contentType: p.contentType })),
  });
  return await composer.compile().build();
}

export async function handOffUpload(deps: UploadDeps, upload: Upload): Promise<UploadOutcome> {
  const from = upload.sender.addresses[0];
  if (from === undefined) return { kind: 'refused', reasonCode: 'SenderNotRegistered', reason: 'the sender has no registered address' };
  const raw = await composeUpload(upload, deps);
  if (raw.length > deps.maxMessageBytes) {
    return {
      kind: 'refused',
      reasonCode: 'MessageTooLarge',
      reason: `the letter exceeds the maximum size of ${deps.maxMessageBytes} bytes`,
    };
  }
  // The message's own rules, on the walk the listener uses (registered sender, PDFs, subject).
  const walk = startMimeWalk();
  await pipeline(Readable.from([raw]), walk.input);
  const broken = brokenRule(await settledWalk(walk.result), from, deps.rules);
  if (broken !== undefined) return { kind: 'refused', reasonCode: broken, reason: refusalFor(broken, deps.rules).message };

  const { spool, digest } = withContentDigest(deps.spool());
  try {
    await spool.write(raw);
    const content = digest(headerBlockOf(raw));
    const intake: NewIntake = {
      intakeId: intakeIdFor(content),
      contentDigest: content.sha256,
      contentDigestScheme: content.scheme,
      receivedAt: deps.clock(),
      envelopeFrom: '',
      envelopeTo: [deps.processingAddress],
      clientIp: upload.clientIp,
      helo: '',
      from,
      subject: cutUtf8(upload.title, SUBJECT_MAX_BYTES),
      messageId: /^Message-ID: (.+)$/im.exec(headerBlockOf(raw).toString('latin1'))?.[1]?.trim() ?? '',
      sizeBytes: raw.length,
      channel: 'web',
      uploadedBy: upload.userEmail,
      auth: { channel: 'web: signed in to the sender portal (e-mail authentication does not apply)' },
    };
    const accepted = await deps.accept(intake, { headers: '', body: () => spool.finish() });
    return { kind: 'accepted', intakeId: accepted.intakeId, duplicate: accepted.duplicate };
  } catch (err) {
    void spool.discard().catch(() => undefined);
    if (err instanceof IntakeError) return { kind: 'refused', reasonCode: err.code, reason: err.message };
    throw err;
  }
}
