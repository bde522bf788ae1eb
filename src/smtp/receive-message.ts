// End of DATA: authenticate while the bytes arrive, then hand the message to durable acceptance.
// The DATA stream is consumed exactly once, always to its end, whatever fails on the way, so
// smtp-server can always answer (an unanswered DATA makes the client re-send: a duplicate).

import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { AuthContext } from '../auth/authenticate.js';
import type { SelectorFindings } from '../auth/selector-findings.js';
import { withTimeout } from '../bounded.js';
import { IntakeError, ofIntake } from '../errors.js';
import type { Accepted, IncomingMessage } from '../intake/accept.js';
import { failedChecks } from '../intake/auth-refusals.js';
import { type ContentDigest, withContentDigest } from '../intake/content-digest.js';
import { intakeIdFor } from '../intake/intake-id.js';
import type { RawSpool } from '../intake/raw-spool.js';
import type { NewIntake } from '../intake/record.js';
import { type SessionRefusal, SUBJECT_MAX_BYTES } from '../intake/session-refusals.js';
import { headerBlockOf } from '../mime/header-block.js';
import type { MimeWalk } from '../mime/mime-walk.js';
import { cutUtf8 } from '../net/cut-text.js';
import type { RuleContext } from '../policy/message-rules.js';
import { readHeaderFields } from './header-fields.js';
import type { MemoryBudget, Reservation } from './memory-budget.js';
import { MAX_LINE_BYTES, MessageCollector } from './message-collector.js';
import { isSelfTest, receiveSelfTest, type SelfTestDeps } from './self-test.js';
import { brokenRule, refusalFor, settledWalk } from './session-rules.js';

export interface AuthDecision {
  readonly outcome: 'pass' | 'fail' | 'temporary';
  readonly reason: string;
  /** Each check's result in words, for the intake record. */
  readonly checks: Readonly<Record<string, string>>;
  /** The single From address ('' when there is not exactly one). */
  readonly from: string;
  /** Authentication-Results / Received-SPF lines to prepend to the stored message. */
  readonly headers: string;
  /** When the From's sender lists DKIM selectors: each signature's selector, listed or not. */
  readonly dkimSelectors?: SelectorFindings | undefined;
}

export type Authenticate = (message: Readable, ctx: AuthContext) => Promise<AuthDecision>;

export interface Envelope {
  readonly mailFrom: string;
  readonly rcptTo: readonly string[];
  readonly clientIp: string;
  readonly helo: string;
}

export interface ReceiveDeps {
  readonly authenticate: Authenticate;
  /** Durable acceptance before the 250: intake/accept.ts's acceptIntake (the blob, the record, the job). */
  readonly accept: (intake: NewIntake, message: IncomingMessage) => Promise<Accepted>;
  /** A fresh spool for one message's bytes. */
  readonly spool: () => RawSpool;
  readonly clock: () => number;
  readonly hostname: string;
  readonly maxMessageBytes: number;
  /** The listener-wide budget every message's buffers are reserved from. */
  readonly memory: MemoryBudget;
  /** Bound on the authentication decision once DATA has ended (its DNS lookups come then). */
  readonly authTimeoutMs: number;
  readonly onAuthSeconds?: (seconds: number) => void;
  /** A streaming MIME walk for one message (mime-walk.ts). */
  readonly startWalk: () => MimeWalk;
  /** The message's own rules, applied once authentication passed. */
  readonly rules: RuleContext;
  /** Keeps a short record of a message refused by its own rules (bounded; never throws). */
  readonly refused: (refusal: SessionRefusal) => Promise<void>;
  /** Refuses the recipients given the authenticated From (sender-addresses.ts); absent: any recipient taken at RCPT. */
  readonly judgeRecipients?: (from: string, rcptTo: readonly string[]) => IntakeError | undefined;
  /** The same for a message refused because it failed authentication (its own record and budget). */
  readonly refusedAuthentication?: (refusal: SessionRefusal) => Promise<void>;
  /** Mail to the self-test address (self-test.ts); undefined: no self-test. */
  readonly selfTest?: SelfTestDeps | undefined;
  /** Hears each discard of a message's bytes, which no reply waits for: the listener's close does (bounded). */
  readonly discarding?: ((discard: Promise<void>) => void) | undefined;
}

export async function receiveMessage(deps: ReceiveDeps, data: Readable, envelope: Envelope): Promise<Accepted> {
  const reservation = deps.memory.open();
  try {
    return await receive(deps, data, envelope, reservation);
  } finally {
    reservation.release();
  }
}

async function receive(deps: ReceiveDeps, data: Readable, envelope: Envelope, reservation: Reservation): Promise<Accepted> {
  const { spool, digest } = withContentDigest(deps.spool());
  const collector = new MessageCollector(deps.maxMessageBytes, spool, reservation);
  data.pipe(collector);
  const walk = deps.startWalk();
  collector.pipe(walk.input); // the walk reads what the collector passes on, beside authentication
  walk.result.catch(() => {}); // handled after authentication
  const started = performance.now();
  const decision = deps
    .authenticate(collector, { ip: envelope.clientIp, helo: envelope.helo, sender: envelope.mailFrom, mta: deps.hostname })
    .finally(() => collector.resume()); // if authentication stopped reading early, drain the rest
  decision.catch(() => {}); // handled below, after the stream ended
  try {
    await finished(data);
  } catch (err) {
    // The client went away mid-DATA: nothing was promised; release what was kept.
    collector.destroy(err instanceof Error ? err : undefined);
    walk.abort();
    discard(deps, spool); // not awaited: a stalled store must not delay anything
    throw err;
  }
  // Every chunk has been through the collector's checks (size, line length, spool writes).
  await finished(collector, { readable: false }).catch(() => undefined);
  try {
    return await accept(deps, collector, spool, digest, decision, walk, started, envelope);
  } catch (err) {
    // Not awaited: the reply must not wait on a stalled store; an orphan blob is swept anyway.
    discard(deps, spool);
    throw err;
  }
}

/** Drops what the spool wrote (a commit begun keeps it, raw-spool.ts), telling the listener it is under way. */
function discard(deps: ReceiveDeps, spool: RawSpool): void {
  deps.discarding?.(spool.discard().catch(() => undefined));
}

async function accept(
  deps: ReceiveDeps,
  collector: MessageCollector,
  spool: RawSpool,
  digest: (headerBlock: Buffer) => ContentDigest,
  decision: Promise<AuthDecision>,
  walk: MimeWalk,
  started: number,
  envelope: Envelope,
): Promise<Accepted> {
  // RFC 5321 §4.5.3.1.10 / RFC 1870 §6.2: 552 for a message over the advertised size.
  if (collector.overCap) {
    throw new IntakeError('MessageTooLarge', `message exceeds the maximum size of ${deps.maxMessageBytes} bytes`);
  }
  if (collector.lineTooLong) throw new IntakeError('LineTooLong', `message has a line longer than ${MAX_LINE_BYTES} bytes`);
  if (collector.memoryExceeded) throw new IntakeError('MemoryBudgetExhausted', 'insufficient system storage, try again later');
  if (collector.spoolError !== undefined) {
    throw new IntakeError('StorageUnavailable', 'storage unavailable, try again later', { cause: collector.spoolError });
  }
  const auth = await withTimeout(decision, deps.authTimeoutMs, 'authentication').catch((err: unknown) => {
    throw new IntakeError('AuthenticationTemporary', 'authentication could not be completed, try again later', { cause: err });
  });
  deps.onAuthSeconds?.((performance.now() - started) / 1000);
  if (auth.outcome === 'temporary') throw new IntakeError('AuthenticationTemporary', auth.reason);
  const headerBlock = headerBlockOf(collector.head);
  const fields = readHeaderFields(headerBlock);
  if (isSelfTest(envelope, deps.selfTest)) {
    const walked = () => settledWalk(walk.result);
    return receiveSelfTest(deps.selfTest, { at: deps.clock(), auth, fields, envelope, walk: walked, body: () => spool.finish() });
  }
  if (auth.outcome === 'fail') {
    const failure = new IntakeError('AuthenticationFailed', auth.reason);
    await deps.refusedAuthentication?.({
      at: deps.clock(),
      reasonCode: failedChecks(auth.checks),
      reply: `${failure.smtp.code} ${failure.smtp.enhanced} ${failure.message}`,
      from: fields.claimedFrom,
      messageId: fields.messageId,
      subject: fields.subject,
      envelopeFrom: envelope.mailFrom,
      clientIp: envelope.clientIp,
      helo: envelope.helo,
    });
    throw failure;
  }

  // Authentication passed: a sender's own address takes only that sender's mail.
  const misaddressed = deps.judgeRecipients?.(auth.from, envelope.rcptTo);
  if (misaddressed !== undefined) {
    await deps.refused({
      at: deps.clock(),
      reasonCode: misaddressed.code,
      reply: `${misaddressed.smtp.code} ${misaddressed.smtp.enhanced} ${misaddressed.message}`,
      from: auth.from,
      messageId: fields.messageId,
      subject: fields.subject,
      envelopeFrom: envelope.mailFrom,
      clientIp: envelope.clientIp,
      helo: envelope.helo,
    });
    throw misaddressed;
  }

  // Then the message's own rules, on what the walk read.
  const broken = brokenRule(await settledWalk(walk.result), auth.from, deps.rules);
  if (broken !== undefined) {
    const refusal = refusalFor(broken, deps.rules);
    await deps.refused({
      at: deps.clock(),
      reasonCode: broken,
      reply: `${refusal.smtp.code} ${refusal.smtp.enhanced} ${refusal.message}`,
      from: auth.from,
      messageId: fields.messageId,
      subject: fields.subject,
      envelopeFrom: envelope.mailFrom,
      clientIp: envelope.clientIp,
      helo: envelope.helo,
    });
    throw refusal;
  }
  const content = digest(headerBlock);
  const intake: NewIntake = {
    intakeId: intakeIdFor(content),
    contentDigest: content.sha256,
    contentDigestScheme: content.scheme,
    receivedAt: deps.clock(),
    envelopeFrom: envelope.mailFrom,
    envelopeTo: [...envelope.rcptTo],
    clientIp: envelope.clientIp,
    helo: envelope.helo,
    from: auth.from,
    // the record shows the subject; the letter's title comes from the worker's own parse (docs/design.md §2.6)
    subject: cutUtf8(fields.subject, SUBJECT_MAX_BYTES),
    messageId: fields.messageId,
    sizeBytes: collector.bytes,
    auth: auth.checks,
  };
  return await deps.accept(intake, { headers: auth.headers, body: () => spool.finish() }).catch((err: unknown) => {
    throw ofIntake(err, intake.intakeId);
  });
}
