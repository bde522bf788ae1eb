// One load run: `sessions` SMTP sessions send copies of one message to a port, either over
// reused connections or one message per connection, closed-loop (as fast as replies come) or
// open-loop at a fixed offered rate. Runs inside the generator process.
import { BENCH_ENVELOPE, type BenchMessage, type SizeName } from './messages.js';
import { SmtpClient, SmtpReplyError } from './smtp-client.js';

export type ConnectionMode = 'reuse' | 'per-connection';

export interface LoadSpec {
  readonly port: number;
  readonly size: SizeName;
  readonly sessions: number;
  readonly mode: ConnectionMode;
  /** Stop claiming messages after this many... */
  readonly maxMessages: number;
  /** ...or after this long, whichever comes first; messages in flight then still finish. */
  readonly durationMs: number;
  /** Offered load in messages per second; undefined: closed loop. */
  readonly ratePerSec?: number;
}

export interface LoadResult {
  readonly sent: number;
  readonly accepted: number;
  /** Reply code → count, for the end of data and for failed commands. */
  readonly replies: Readonly<Record<string, number>>;
  /** Connection-level failures (refused, reset, closed early). */
  readonly errors: number;
  /** The first connection failure or refusal, as text. */
  readonly firstError: string | undefined;
  /** From the start (after every reused session said EHLO) to the last reply. */
  readonly elapsedMs: number;
  readonly acceptedPerSec: number;
  readonly wireMBPerSec: number;
  /** Intake ids from the 250 replies ("queued as <id>"), when the server gives them. */
  readonly intakeIds: readonly string[];
  /** End of data → reply, client side, milliseconds. */
  readonly replyMs: { readonly p50: number; readonly p99: number; readonly max: number };
}

export interface LoadDeps {
  readonly message: BenchMessage;
  /** The next copy number (unique for the generator's lifetime). */
  readonly nextSeq: () => number;
  readonly now: () => number;
}

export async function runLoad(spec: LoadSpec, deps: LoadDeps): Promise<LoadResult> {
  const { message, now } = deps;
  const replies: Record<string, number> = {};
  const intakeIds: string[] = [];
  const replyMs: number[] = [];
  let claimed = 0;
  let accepted = 0;
  let errors = 0;
  let firstError: string | undefined;
  let lastReplyAt = 0;
  const count = (code: number | string): void => {
    replies[code] = (replies[code] ?? 0) + 1;
  };
  const noteError = (err: unknown): void => {
    errors += 1;
    firstError ??= err instanceof Error ? err.message : String(err);
    if (err instanceof SmtpReplyError) count(err.reply.code);
  };

  let t0 = now();
  const claim = async (): Promise<number | undefined> => {
    if (claimed >= spec.maxMessages || now() - t0 >= spec.durationMs) return undefined;
    const index = claimed;
    claimed += 1;
    if (spec.ratePerSec !== undefined) {
      const due = t0 + (index * 1000) / spec.ratePerSec;
      const wait = due - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    return index;
  };
  const sendOne = async (client: SmtpClient): Promise<void> => {
    const seq = deps.nextSeq();
    const started = now();
    const reply = await client.send(BENCH_ENVELOPE.mailFrom, BENCH_ENVELOPE.rcptTo, message.head(seq), message.tail);
    lastReplyAt = now();
    replyMs.push(lastReplyAt - started);
    count(reply.code);
    if (reply.code !== 250) {
      firstError ??= `${reply.code} ${reply.text}`;
      return;
    }
    accepted += 1;
    const id = /queued as (\S+)/.exec(reply.text)?.[1];
    if (id !== undefined) intakeIds.push(id);
  };

  const open = (): Promise<SmtpClient> => SmtpClient.open(spec.port, BENCH_ENVELOPE.helo);
  if (spec.mode === 'reuse') {
    const clients = await Promise.all(Array.from({ length: spec.sessions }, open));
    t0 = now();
    await Promise.all(
      clients.map(async (client) => {
        try {
          while ((await claim()) !== undefined) await sendOne(client);
          await client.quit();
        } catch (err) {
          noteError(err);
          client.destroy();
        }
      }),
    );
  } else {
    await Promise.all(
      Array.from({ length: spec.sessions }, async () => {
        while ((await claim()) !== undefined) {
          let client: SmtpClient | undefined;
          try {
            client = await open();
            await sendOne(client);
            await client.quit();
          } catch (err) {
            noteError(err);
            client?.destroy();
          }
        }
      }),
    );
  }

  const elapsedMs = Math.max(1, (lastReplyAt || now()) - t0);
  const sorted = replyMs.sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return {
    sent: replyMs.length,
    accepted,
    replies,
    errors,
    firstError,
    elapsedMs,
    acceptedPerSec: (accepted * 1000) / elapsedMs,
    wireMBPerSec: (accepted * message.wireBytes) / 1e6 / (elapsedMs / 1000),
    intakeIds,
    replyMs: { p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 },
  };
}
