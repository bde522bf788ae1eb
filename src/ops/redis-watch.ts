// Whether Redis answers the admin area, and since when it does not. A connection that is lost
// says so at once; a connection that is still open can be silent (a stalled or stopped server,
// a network that drops packets): only a PING within a short bound tells. Requests arriving
// together share one PING, so a stall does not pile one up per request.
import { withTimeout } from '../bounded.js';
import type { RedisClient } from '../redis/connections.js';

/** How long a PING may take before Redis counts as not answering. */
export const PING_BOUND_MS = 700;
/** A connection still being made (at start, or a reconnect attempt) gets this long to become ready. */
const CONNECTING_GRACE_MS = 500;
const POLL_MS = 25;
const LOST = new Set(['reconnecting', 'close', 'end']);

export interface RedisSilence {
  /** Milliseconds since the epoch: the first moment Redis was seen not answering. */
  readonly since: number;
  /** The connection's state then ('ready' for a connection that is open and silent). */
  readonly connection: string;
}

export class RedisWatch {
  #since: number | undefined;
  #ping: Promise<boolean> | undefined;

  constructor(
    private readonly redis: Pick<RedisClient, 'status' | 'ping'>,
    private readonly clock: () => number,
  ) {}

  /** Undefined while Redis answers; else since when it has not. Never waits much more than PING_BOUND_MS. */
  async silence(): Promise<RedisSilence | undefined> {
    if (!(await this.readySoon())) return this.silent(this.clock());
    const startedAt = this.clock();
    this.#ping ??= withTimeout(this.redis.ping(), PING_BOUND_MS, 'Redis PING').then(
      () => true,
      () => false,
    );
    const ping = this.#ping;
    const answered = await ping;
    if (this.#ping === ping) this.#ping = undefined;
    if (answered) {
      this.#since = undefined;
      return undefined;
    }
    return this.silent(startedAt);
  }

  /** A request that waited on Redis past its bound: Redis has not answered since `at` at the latest. */
  noteSilence(at: number): RedisSilence {
    return this.silent(at);
  }

  private silent(at: number): RedisSilence {
    this.#since ??= at;
    return { since: this.#since, connection: this.redis.status };
  }

  /** Ready now, or within the grace unless the connection is lost. */
  private async readySoon(): Promise<boolean> {
    for (let waited = 0; ; waited += POLL_MS) {
      if (this.redis.status === 'ready') return true;
      if (LOST.has(this.redis.status) || waited >= CONNECTING_GRACE_MS) return false;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
