// A loopback SMTP server standing in for the outbound relay (NOTICE_SMTP_URL): it keeps every
// message whose DATA ended, with its envelope, and can hold its reply to one RCPT TO or to the
// end of one DATA, so a test can kill the sender at exactly that moment.
import { SMTPServer } from 'smtp-server';

export interface RelayedMail {
  /** MAIL FROM as given ('' for the null sender). */
  readonly mailFrom: string;
  readonly rcptTo: readonly string[];
  readonly raw: Buffer;
}

export interface Hold {
  /** Resolves when the relay reached the held point. */
  readonly reached: Promise<void>;
  release(): void;
}

export interface TestRelay {
  readonly url: string;
  /** Messages whose final "." arrived, in order (kept before the relay replies). */
  readonly received: RelayedMail[];
  /** What the relay saw, in order: "rcpt <address>" when it accepted a recipient, "data-end" at each ".". */
  readonly events: string[];
  /** The next RCPT TO waits for release before it is answered. */
  holdNextRcpt(): Hold;
  /** The next RCPT TO is refused with this reply code. */
  refuseNextRcpt(code: number): void;
  /** The next message's "." waits for release before it is answered (the message is kept). */
  holdNextDataReply(): Hold;
  /** Resolves with the received messages once there are at least `count`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<RelayedMail[]>;
  close(): Promise<void>;
}

interface PendingHold {
  readonly reachedNow: () => void;
  readonly released: Promise<void>;
}

function makeHold(): { hold: Hold; pending: PendingHold } {
  let reachedNow = (): void => {};
  let release = (): void => {};
  const reached = new Promise<void>((r) => {
    reachedNow = r;
  });
  const released = new Promise<void>((r) => {
    release = r;
  });
  return { hold: { reached, release }, pending: { reachedNow, released } };
}

export interface TestRelayOptions {
  /** Require AUTH (PLAIN/LOGIN, allowed without TLS on loopback) with these credentials. */
  readonly credentials?: { readonly user: string; readonly pass: string };
}

export async function startTestRelay(options: TestRelayOptions = {}): Promise<TestRelay> {
  const received: RelayedMail[] = [];
  const events: string[] = [];
  let rcptHold: PendingHold | undefined;
  let dataHold: PendingHold | undefined;
  let rcptRefusal: number | undefined;
  const { credentials } = options;
  const server = new SMTPServer({
    authOptional: credentials === undefined,
    allowInsecureAuth: true,
    disabledCommands: credentials === undefined ? ['STARTTLS', 'AUTH'] : ['STARTTLS'],
    disableReverseLookup: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (credentials !== undefined && auth.username === credentials.user && auth.password === credentials.pass)
        return callback(null, { user: auth.username });
      return callback(Object.assign(new Error('5.7.8 authentication failed'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const refusal = rcptRefusal;
      rcptRefusal = undefined;
      if (refusal !== undefined)
        return callback(Object.assign(new Error(`${refusal >= 500 ? '5' : '4'}.7.1 refused by the test relay`), { responseCode: refusal }));
      const accept = (): void => {
        events.push(`rcpt ${address.address}`);
        callback();
      };
      const hold = rcptHold;
      rcptHold = undefined;
      if (hold === undefined) return accept();
      hold.reachedNow();
      void hold.released.then(accept);
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        events.push('data-end');
        const mailFrom = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        received.push({ mailFrom, rcptTo: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks) });
        const hold = dataHold;
        dataHold = undefined;
        if (hold === undefined) return callback();
        hold.reachedNow();
        void hold.released.then(() => callback());
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    events,
    holdNextRcpt() {
      const { hold, pending } = makeHold();
      rcptHold = pending;
      return hold;
    },
    refuseNextRcpt(code) {
      rcptRefusal = code;
    },
    holdNextDataReply() {
      const { hold, pending } = makeHold();
      dataHold = pending;
      return hold;
    },
    async waitForMessages(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`the relay received ${received.length} of ${count} messages`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return received;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
