// The outbound relay for notices (NOTICE_SMTP_URL), over nodemailer's SMTP connection with the
// null envelope sender (MAIL FROM:<>, RFC 3464 §2 / RFC 5321 §4.5.5: nothing answers a notice).
//
// Exactly-once needs to know the moment of no return: SMTP hands a message over with the final
// "." of DATA, and from then on only the relay's reply says whether it took it. So the message
// is fed through a gate that calls `commit` (the caller records the checkpoint) after the relay
// said 354 and the content went out, and only then lets the "." follow. nodemailer's transport
// would read the message ahead, before DATA, which is why the connection is driven directly.
import { Readable } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';

export interface RelayOptions {
  /** `smtp://host:port` or `smtps://user:pass@host:port`. */
  readonly url: string;
  /** Our name in EHLO. */
  readonly heloName: string;
  /** Bound on connecting, the greeting and every reply. */
  readonly timeoutMs: number;
}

/** Why a notice did not reach the relay, or may have. */
export class RelayError extends Error {
  override readonly name = 'RelayError';

  constructor(
    message: string,
    /** A 5xx reply: trying again cannot help. */
    readonly permanent: boolean,
    /** The "." was sent and no reply came: the relay may have the message. */
    readonly unconfirmed: boolean,
  ) {
    super(message);
  }
}

export interface NoticeRelay {
  /** Sends `raw` to `to` with MAIL FROM:<>; `commit` runs just before the message is handed over. */
  send(to: string, raw: Buffer, commit: () => Promise<void>): Promise<string>;
}

export function createRelay(options: RelayOptions): NoticeRelay {
  const url = new URL(options.url);
  const secure = url.protocol === 'smtps:';
  // RFC 8314 §3.3: 465 for implicit TLS; RFC 6409 §3.1: 587 for submission.
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  const auth = url.username === '' ? undefined : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  return {
    async send(to, raw, commit) {
      const connection = new SMTPConnection({
        host: url.hostname,
        port,
        secure,
        name: options.heloName,
        connectionTimeout: options.timeoutMs,
        greetingTimeout: options.timeoutMs,
        socketTimeout: options.timeoutMs,
      });
      let committed = false;
      // 'error' may come more than once (and after the end): always listened to, first one counts.
      const failed = new Promise<never>((_, reject) => connection.on('error', reject));
      failed.catch(() => {});
      try {
        await Promise.race([new Promise<void>((done, reject) => connection.connect((err) => (err ? reject(err) : done()))), failed]);
        if (auth !== undefined) {
          await Promise.race([new Promise<void>((done, reject) => connection.login(auth, (err) => (err ? reject(err) : done()))), failed]);
        }
        const message = gated(raw, async () => {
          await commit();
          committed = true;
        });
        const info = await Promise.race([
          new Promise<string>((done, reject) =>
            connection.send({ from: '', to: [to] }, message, (err, result) => (err ? reject(err) : done(result.response ?? ''))),
          ),
          failed,
        ]);
        connection.quit();
        return info;
      } catch (err) {
        connection.close();
        throw asRelayError(err, committed);
      }
    },
  };
}

/** The message, then (once it was all read) `beforeEnd`, then the end of the stream. */
function gated(raw: Buffer, beforeEnd: () => Promise<void>): Readable {
  let sent = false;
  return new Readable({
    read() {
      if (!sent) {
        sent = true;
        this.push(raw);
        return;
      }
      beforeEnd().then(
        () => this.push(null),
        (err: unknown) => this.destroy(err instanceof Error ? err : new Error(String(err))),
      );
    },
  });
}

function asRelayError(err: unknown, committed: boolean): RelayError {
  const message = err instanceof Error ? err.message : String(err);
  const code = responseCodeOf(err);
  if (code !== undefined) return new RelayError(`the relay answered ${code}: ${message}`, code >= 500, false);
  return new RelayError(message, false, committed);
}

function responseCodeOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('responseCode' in err)) return undefined;
  return typeof err.responseCode === 'number' ? err.responseCode : undefined;
}
