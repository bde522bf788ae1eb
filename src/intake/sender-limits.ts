// Each sender's limits (SENDERS_FILE limits: messagesPerHour, bytesPerHour, queuedIntakes),
// checked and counted in one Redis step (scripts/admit-sender-7.lua) so every listener, and any
// other channel that makes intakes, shares the same counts. `admit` is the one check every new
// intake passes before its bytes are committed; a sender without limits costs nothing.
import { IntakeError } from '../errors.js';
import type { RedisClient } from '../redis/connections.js';
import type { SenderLimits } from '../senders/tenant-settings.js';
import { intakeKeys } from './keys.js';
import { luaScript } from './lua-script.js';

const ADMIT = luaScript(new URL('./scripts/admit-sender-7.lua', import.meta.url));

export const LIMIT_WINDOW_MS = 3600_000;

/** The sender an intake belongs to, with its limits; undefined: no limits apply. */
export interface LimitedSender {
  readonly senderId: string;
  /** How metrics and pages name it. */
  readonly name: string;
  readonly limits: SenderLimits;
}

export interface SenderUse {
  readonly messages: number;
  readonly bytes: number;
  readonly open: number;
}

export type LimitName = keyof SenderLimits;

/** What an admission did; `release` takes back a fresh count when the intake was not made after all. */
/** `counted`: another delivery of the same message counted it already; only `admitted` is taken back. */
export type Admission =
  | { readonly kind: 'unlimited' | 'redelivery' | 'counted' }
  | { readonly kind: 'admitted'; readonly sender: LimitedSender; readonly intakeId: string; readonly use: SenderUse };

export interface SenderLimiterDeps {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly clock: () => number;
  readonly senderOf: (from: string) => LimitedSender | undefined;
  /** How long an admitted intake counts as open before its record exists (the acceptance bound, and some). */
  readonly admittedGraceMs: number;
  /** How long the open set outlives the sender's last admission (the record retention). */
  readonly openLifetimeMs: number;
  /** Told each sender's use after each admission or refusal (metrics). */
  readonly onUse?: (sender: LimitedSender, use: SenderUse) => void;
}

export class SenderLimiter {
  private readonly keys: ReturnType<typeof intakeKeys>;

  constructor(private readonly deps: SenderLimiterDeps) {
    this.keys = intakeKeys(deps.prefix);
  }

  /** Counts the intake against its sender's limits, or throws SenderLimitReached (451 4.7.1). */
  async admit(intake: { readonly intakeId: string; readonly from: string; readonly sizeBytes: number }): Promise<Admission> {
    const sender = this.deps.senderOf(intake.from);
    if (sender === undefined) return { kind: 'unlimited' };
    const { senderId, limits } = sender;
    const answer = await ADMIT(
      this.deps.redis,
      this.keys.record(intake.intakeId),
      this.keys.senderWindow(senderId),
      this.keys.senderSizes(senderId),
      this.keys.senderOpen(senderId),
      this.keys.stateIndex('received'),
      this.keys.stateIndex('queued'),
      this.keys.stateIndex('processing'),
      this.deps.clock(),
      LIMIT_WINDOW_MS,
      intake.intakeId,
      intake.sizeBytes,
      limits.messagesPerHour ?? 0,
      limits.bytesPerHour ?? 0,
      limits.queuedIntakes ?? 0,
      this.deps.admittedGraceMs,
      this.deps.openLifetimeMs,
    );
    if (!Array.isArray(answer)) throw new Error(`unexpected answer from the admission script: ${String(answer)}`);
    const [kind, ...rest] = answer.map((v: unknown) => (typeof v === 'number' ? v : String(v)));
    if (kind === 'redelivery') return { kind: 'redelivery' };
    if (kind === 'counted') {
      this.deps.onUse?.(sender, { messages: Number(rest[0]), bytes: Number(rest[1]), open: Number(rest[2]) });
      return { kind: 'counted' };
    }
    if (kind === 'admitted') {
      const use = { messages: Number(rest[0]), bytes: Number(rest[1]), open: Number(rest[2]) };
      this.deps.onUse?.(sender, use);
      return { kind: 'admitted', sender, intakeId: intake.intakeId, use };
    }
    const [name, limit, roomAt, messages, bytes, open] = rest;
    this.deps.onUse?.(sender, { messages: Number(messages), bytes: Number(bytes), open: Number(open) });
    throw limitReached(String(name) as LimitName, Number(limit), Number(roomAt));
  }

  /** Takes back a fresh count whose intake was not made (its message was answered 451). */
  async release(admission: Admission): Promise<void> {
    if (admission.kind !== 'admitted') return;
    const { senderId } = admission.sender;
    await this.deps.redis
      .multi()
      .zrem(this.keys.senderWindow(senderId), admission.intakeId)
      .hdel(this.keys.senderSizes(senderId), admission.intakeId)
      .zrem(this.keys.senderOpen(senderId), admission.intakeId)
      .exec();
  }

  /** A sender's use now (senderUse). */
  use(senderId: string): Promise<SenderUse> {
    return senderUse(this.deps.redis, this.deps.prefix, senderId, this.deps.clock());
  }
}

/**
 * A sender's use at `now`, for the pages: the window's intakes and their sizes, and its open
 * intakes as the last admission left them (ended ones are dropped at the next admission).
 */
export async function senderUse(redis: RedisClient, prefix: string, senderId: string, now: number): Promise<SenderUse> {
  const keys = intakeKeys(prefix);
  const ids = await redis.zrangebyscore(keys.senderWindow(senderId), `(${now - LIMIT_WINDOW_MS}`, '+inf');
  const sizes = ids.length === 0 ? [] : await redis.hmget(keys.senderSizes(senderId), ...ids);
  const open = await redis.zcard(keys.senderOpen(senderId));
  return { messages: ids.length, bytes: sizes.reduce((sum, s) => sum + Number(s ?? 0), 0), open };
}

const UNITS: Record<LimitName, string> = {
  messagesPerHour: 'messages per hour',
  bytesPerHour: 'bytes per hour',
  queuedIntakes: 'intakes not yet ended',
};

/** The refusal naming the limit and when there is room again. */
export function limitReached(name: LimitName, limit: number, roomAt: number): IntakeError {
  const what = `the sender's limit of ${limit} ${UNITS[name]} (${name})`;
  if (roomAt < 0) return new IntakeError('LargerThanSenderLimit', `this message alone is larger than ${what}`);
  const when = roomAt === 0 ? 'when one of them ends' : `at ${new Date(roomAt).toISOString().replace(/\.\d{3}Z$/, 'Z')}`;
  return new IntakeError('SenderLimitReached', `${what} is reached; there is room again ${when}`);
}

/** Each limit the sender has, with its use as a ratio (1 = reached). */
export function useRatios(limits: SenderLimits, use: SenderUse): [LimitName, number][] {
  const pairs: [LimitName, number | undefined, number][] = [
    ['messagesPerHour', limits.messagesPerHour, use.messages],
    ['bytesPerHour', limits.bytesPerHour, use.bytes],
    ['queuedIntakes', limits.queuedIntakes, use.open],
  ];
  return pairs.flatMap(([name, limit, used]) => (limit === undefined ? [] : [[name, used / limit] as [LimitName, number]]));
}
