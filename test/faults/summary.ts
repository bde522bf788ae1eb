// What the hostile-* fault files report and measure: a plain-text table per file, the resident
// memory of this process (which hosts the listener and the worker), the time one well-behaved
// SMTP client waits, and a scan of captured log lines for things that must never be logged.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_DIR } from '../helpers/gateway.js';
import { BODY_MARKER } from '../helpers/hostile-messages.js';
import { SmtpClient } from '../helpers/smtp-client.js';

export type Cell = string | number;

/** Prints a table with a title, columns padded to their widest cell. */
export function printTable(title: string, header: readonly string[], rows: readonly (readonly Cell[])[]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells: readonly Cell[]) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  process.stdout.write(`\n${title}\n${line(header)}\n${rule}\n${rows.map(line).join('\n')}\n`);
}

/** Rows [key, count], sorted by key. */
export function countBy<T>(items: readonly T[], key: (item: T) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
}

export interface RssWatch {
  readonly baselineMb: number;
  readonly peakMb: number;
  /** Peak minus baseline. */
  readonly growthMb: number;
  /** Starts a new baseline at the current RSS (after a warm-up). */
  rebase(): void;
  stop(): void;
}

const mb = (bytes: number) => Math.round(bytes / (1024 * 1024));

/** Samples process RSS every `everyMs` and keeps the peak. */
export function watchRss(everyMs = 25): RssWatch {
  let baseline = process.memoryUsage.rss();
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, everyMs);
  timer.unref();
  return {
    get baselineMb() {
      return mb(baseline);
    },
    get peakMb() {
      return mb(Math.max(peak, process.memoryUsage.rss()));
    },
    get growthMb() {
      return mb(Math.max(peak, process.memoryUsage.rss()) - baseline);
    },
    rebase() {
      baseline = process.memoryUsage.rss();
      peak = baseline;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

export interface ProbeTimes {
  /** TCP connect to the 220 greeting. */
  readonly greetingMs: number;
  /** EHLO, MAIL, RCPT, each a round trip. */
  readonly commandsMs: number;
  /** The whole transaction, DATA included, up to the final reply. */
  readonly totalMs: number;
  readonly finalCode: number;
}

/** One well-behaved client delivering `raw` from 127.0.0.1, timed. */
export async function timedDelivery(port: number, raw: Buffer, from = 'letters@acme.example'): Promise<ProbeTimes> {
  const started = performance.now();
  const { client, greeting } = await SmtpClient.open(port);
  const greeted = performance.now();
  try {
    if (greeting.code !== 220)
      return { greetingMs: greeted - started, commandsMs: 0, totalMs: greeted - started, finalCode: greeting.code };
    await client.command('EHLO mta.acme.example');
    await client.command(`MAIL FROM:<${from}>`);
    await client.command('RCPT TO:<letters@intake.example>');
    const commanded = performance.now();
    const { end } = await client.data(raw);
    return { greetingMs: greeted - started, commandsMs: commanded - greeted, totalMs: performance.now() - started, finalCode: end.code };
  } finally {
    await client.quit();
  }
}

export interface Leak {
  readonly what: string;
  readonly line: string;
}

/** Every log line (as JSON text) containing one of the needles; each needle names what it is. */
export function findLeaks(lines: readonly unknown[], needles: readonly { what: string; text: string }[]): Leak[] {
  const leaks: Leak[] = [];
  for (const entry of lines) {
    const text = JSON.stringify(entry);
    for (const needle of needles) {
      if (needle.text !== '' && text.includes(needle.text)) leaks.push({ what: needle.what, line: text.slice(0, 300) });
    }
  }
  return leaks;
}

/** What no log line of any hostile-* file may hold: the client secrets of fixtures/senders.json, generated message bodies, PDF bytes. */
export function standardNeedles(): { what: string; text: string }[] {
  const directory: { senders: { apiClientId: string; apiClientSecret: string }[] } = JSON.parse(
    readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8'),
  );
  return [
    ...directory.senders.map((s) => ({ what: `client secret of ${s.apiClientId}`, text: s.apiClientSecret })),
    { what: 'message body', text: BODY_MARKER },
    { what: 'PDF bytes (base64 of %PDF-)', text: 'JVBERi0' },
  ];
}
