// End of DATA: authenticate while the bytes arrive, then hand the message to durable acceptance.
// The DATA stream is consumed exactly once, always to its end, whatever fails on the way, so
// smtp-server can always answer (an unanswered DATA makes the client re-send: a duplicate).
import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { finished } from 'node:stream/promises';
import { IntakeError } from '../errors.js';
import { intakeIdFor } from '../intake/intake-id.js';
import type { Accepted } from '../intake/accept.js';
import type { NewIntake } from '../intake/record.js';
import { readHeaderFields } from './header-fields.js';

export interface AuthContext {
  readonly ip: string;
  readonly helo: string;
  /** Envelope MAIL FROM; '' for the null sender. */
  readonly sender: string;
  /** Our host name (authserv-id). */
  readonly mta: string;
}

export interface AuthDecision {
  readonly outcome: 'pass' | 'fail' | 'temporary';
  readonly reason: string;
  /** Each check's result in words, for the intake record. */
  readonly checks: Readonly<Record<string, string>>;
  /** The single From address ('' when there is not exactly one). */
  readonly from: string;
  /** Authentication-Results / Received-SPF lines to prepend to the stored message. */
  readonly headers: string;
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
  readonly accept: (intake: NewIntake, raw: Buffer) => Promise<Accepted>;
  readonly clock: () => number;
  readonly hostname: string;
  readonly maxMessageBytes: number;
  readonly onAuthSeconds?: (seconds: number) => void;
}

/** Keeps the chunks it passes on (one copy of the message), up to a byte cap. */
class Collector extends Transform {
  readonly chunks: Buffer[] = [];
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.chunks.length = 0; // over the cap: keep nothing, keep draining
      return done();
    }
    this.chunks.push(chunk);
    done(null, chunk);
  }

  get overCap(): boolean {
    return this.bytes > this.maxBytes;
  }
}

export async function receiveMessage(deps: ReceiveDeps, data: Readable, envelope: Envelope): Promise<Accepted> {
  const collector = new Collector(deps.maxMessageBytes);
  data.pipe(collector);
  const started = performance.now();
  const decision = deps
    .authenticate(collector, { ip: envelope.clientIp, helo: envelope.helo, sender: envelope.mailFrom, mta: deps.hostname })
    .finally(() => collector.resume()); // if authentication stopped reading early, drain the rest
  decision.catch(() => {}); // handled below, after the stream ended
  await finished(data);

  // RFC 5321 §4.5.3.1.10 / RFC 1870 §6.2: 552 for a message over the advertised size.
  if (collector.overCap) {
    throw new IntakeError('MessageTooLarge', `message exceeds the maximum size of ${deps.maxMessageBytes} bytes`);
  }
  const auth = await decision.catch((err: unknown) => {
    throw new IntakeError('AuthenticationTemporary', 'authentication could not be completed, try again later', { cause: err });
  });
  deps.onAuthSeconds?.((performance.now() - started) / 1000);
  if (auth.outcome === 'temporary') throw new IntakeError('AuthenticationTemporary', auth.reason);
  if (auth.outcome === 'fail') throw new IntakeError('AuthenticationFailed', auth.reason);

  const prepended = Buffer.from(auth.headers, 'utf8');
  const raw = Buffer.concat([prepended, ...collector.chunks]);
  collector.chunks.length = 0;
  const message = raw.subarray(prepended.length);
  const fields = readHeaderFields(message);
  // Without a Message-ID the bytes identify the message (hashing them only then).
  const sha256 = fields.messageId === '' ? createHash('sha256').update(message).digest('hex') : '';
  const intake: NewIntake = {
    intakeId: intakeIdFor({ from: auth.from, messageId: fields.messageId, sha256 }),
    receivedAt: deps.clock(),
    envelopeFrom: envelope.mailFrom,
    envelopeTo: [...envelope.rcptTo],
    clientIp: envelope.clientIp,
    helo: envelope.helo,
    from: auth.from,
    subject: fields.subject,
    messageId: fields.messageId,
    sizeBytes: message.length,
    auth: auth.checks,
  };
  return deps.accept(intake, raw);
}
