// Messages refused in the SMTP session by their own rules (docs/design.md §2.4): a short record each,
// so an operator who gets a call can find the message. They never became intakes (no raw
// message, no job). One sorted set, scored by time: entries older than the retention are
// dropped on every write, and the newest MAX_KEPT are all that is kept, whatever the rate.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';

/** A bound on the index whatever a sender does: refusals past it drop the oldest. */
const MAX_KEPT = 10_000;

export interface SessionRefusal {
  readonly at: number;
  readonly reasonCode: string;
  /** The whole reply the client got, e.g. "550 5.6.0 NoPdfAttachment: …". */
  readonly reply: string;
  readonly from: string;
  readonly messageId: string;
  readonly subject: string;
  readonly envelopeFrom: string;
  readonly clientIp: string;
  readonly helo: string;
}

export class SessionRefusals {
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly retentionMs: number,
  ) {
    this.key = `${prefix}:refused`;
  }

  async add(refusal: SessionRefusal): Promise<void> {
    // the random tag keeps two identical refusals in the same millisecond apart
    const member = JSON.stringify({ ...refusal, tag: randomBytes(4).toString('hex') });
    await this.redis
      .multi()
      .zadd(this.key, refusal.at, member)
      .zremrangebyscore(this.key, '-inf', refusal.at - this.retentionMs)
      .zremrangebyrank(this.key, 0, -(MAX_KEPT + 1))
      .pexpire(this.key, this.retentionMs)
      .exec();
  }

  /** Newest first; those older than the retention are left out even before a write drops them. */
  async list(limit: number, now: number): Promise<SessionRefusal[]> {
    const members = await this.redis.zrevrangebyscore(this.key, '+inf', now - this.retentionMs, 'LIMIT', 0, limit);
    return members.flatMap((m) => {
      const parsed = parseRefusal(m);
      return parsed === undefined ? [] : [parsed];
    });
  }
}

const refusalSchema = z.object({
  at: z.number(),
  reasonCode: z.string(),
  reply: z.string(),
  from: z.string(),
  messageId: z.string(),
  subject: z.string(),
  envelopeFrom: z.string(),
  clientIp: z.string(),
  helo: z.string(),
});

function parseRefusal(member: string): SessionRefusal | undefined {
  try {
    const parsed = refusalSchema.safeParse(JSON.parse(member));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // not JSON: not ours
  }
}
