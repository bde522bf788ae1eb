// The reports of self-tests (docs/sender-policy.md "Before you go live"): what each check found
// for a message sent to the self-test address, kept a week for the intake pages, and the limit
// on how many self-tests one client network and one From domain may ask for an hour. A report
// is no intake: no raw-store marker, no letter, no sender's limits. Bounded: at most MAX_KEPT
// reports, each field cut.
import { z } from 'zod';
import { networkOf } from '../net/client-network.js';
import { cutUtf8 } from '../net/cut-text.js';
import type { RedisClient } from '../redis/connections.js';

export const SELF_TEST_RETENTION_MS = 7 * 24 * 3600 * 1000;
const MAX_KEPT = 1000;
const HOUR_MS = 3600 * 1000;
/** Self-tests an hour: per client network (/24, /64), and per From domain for those whose From is authenticated. */
export const SELF_TEST_LIMITS = { perNetwork: 10, perFromDomain: 20 } as const;
const FIELD_MAX_BYTES = 256;

const pdfVerdictSchema = z.object({ fileName: z.string(), verdict: z.string() });

const selectorsSchema = z.object({
  listed: z.array(z.string()),
  signatures: z.array(z.object({ domain: z.string(), selector: z.string(), result: z.string(), listed: z.boolean() })),
});

const reportSchema = z.object({
  id: z.string(),
  at: z.number(),
  outcome: z.enum(['pass', 'fail']),
  /** checking: the worker has the PDFs; reported: done (mailed or not); refused: failed in the session. */
  state: z.enum(['checking', 'reported', 'refused']),
  reply: z.string(),
  clientIp: z.string(),
  helo: z.string(),
  envelopeFrom: z.string(),
  /** The From (authenticated on a pass, only claimed on a fail). */
  from: z.string(),
  messageId: z.string(),
  subject: z.string(),
  /** Each authentication check's finding ("pass: SPF pass for acme.example from 127.0.0.1"). */
  checks: z.record(z.string(), z.string()),
  /** Whether the From is a registered sender: on a pass only (the reply never says). */
  registered: z.boolean().optional(),
  /** The message's own rules ("pass", or the rule that a letter would break, with its sentence). */
  rules: z.string().optional(),
  pdfs: z.array(pdfVerdictSchema).optional(),
  /** When the From's sender lists DKIM selectors: each signature's selector, listed or not. */
  dkimSelectors: selectorsSchema.optional(),
  /** What became of the report mail ("mailed to …", "not mailed: …"). */
  mailed: z.string().optional(),
});

export type SelfTestReport = z.infer<typeof reportSchema>;
export type PdfVerdict = z.infer<typeof pdfVerdictSchema>;

export type RateVerdict = { readonly ok: true } | { readonly ok: false; readonly limit: 'network' | 'fromDomain' };

export class SelfTestReports {
  private readonly index: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {
    this.index = `${prefix}:selftest-reports`;
  }

  private key(id: string): string {
    return `${this.prefix}:selftest-report:${id}`;
  }

  async save(report: SelfTestReport): Promise<void> {
    const cut = (t: string) => cutUtf8(t, FIELD_MAX_BYTES);
    const bounded: SelfTestReport = {
      ...report,
      from: cut(report.from),
      messageId: cut(report.messageId),
      subject: cut(report.subject),
      helo: cut(report.helo),
      envelopeFrom: cut(report.envelopeFrom),
    };
    await this.redis
      .multi()
      .set(this.key(report.id), JSON.stringify(bounded), 'PX', SELF_TEST_RETENTION_MS)
      .zadd(this.index, report.at, report.id)
      .zremrangebyscore(this.index, '-inf', report.at - SELF_TEST_RETENTION_MS)
      .zremrangebyrank(this.index, 0, -MAX_KEPT - 1)
      .pexpire(this.index, SELF_TEST_RETENTION_MS)
      .exec();
  }

  async get(id: string): Promise<SelfTestReport | undefined> {
    const text = await this.redis.get(this.key(id));
    if (text === null) return undefined;
    try {
      const parsed = reportSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Newest first. */
  async list(limit: number): Promise<SelfTestReport[]> {
    const ids = await this.redis.zrevrange(this.index, 0, limit - 1);
    const reports = await Promise.all(ids.map((id) => this.get(id)));
    return reports.filter((r): r is SelfTestReport => r !== undefined);
  }

  /**
   * Counts one self-test against the limits of the current hour: its client network's, and its
   * From domain's when the From is authenticated (`undefined` otherwise: a forged From must not
   * spend the domain owner's self-tests).
   */
  async admit(clientIp: string, authenticatedFromDomain: string | undefined, now: number): Promise<RateVerdict> {
    const hour = Math.floor(now / HOUR_MS);
    const network = networkOf(clientIp, { v4Bits: 24, v6Bits: 64 });
    const byNetwork = `${this.prefix}:selftest-rate:net:${network}:${hour}`;
    const counting = this.redis
      .multi()
      .incr(byNetwork)
      .pexpire(byNetwork, 2 * HOUR_MS);
    if (authenticatedFromDomain !== undefined) {
      const byDomain = `${this.prefix}:selftest-rate:from:${cutUtf8(authenticatedFromDomain, 255)}:${hour}`;
      counting.incr(byDomain).pexpire(byDomain, 2 * HOUR_MS);
    }
    const answers = await counting.exec();
    const count = (i: number) => Number(answers?.[i]?.[1] ?? 0);
    if (count(0) > SELF_TEST_LIMITS.perNetwork) return { ok: false, limit: 'network' };
    if (authenticatedFromDomain !== undefined && count(2) > SELF_TEST_LIMITS.perFromDomain) return { ok: false, limit: 'fromDomain' };
    return { ok: true };
  }
}
