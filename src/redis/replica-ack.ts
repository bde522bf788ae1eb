// Replica acknowledgement (REDIS_REPLICAS_ACK): a write counts once N replicas hold it, so the
// loss of the primary machine loses nothing that was promised.
//
// Redis's WAIT covers the writes made before it *on its own connection*, and blocks that
// connection until it answers. So it never runs on a shared producer connection (every session
// would wait behind it); it runs on a connection of its own that first writes a tick and then
// waits for it. Replication is one ordered stream: a replica that holds the tick holds every
// write the primary acknowledged before the tick was sent, on any connection. Callers whose
// writes were acknowledged share the next round (a group commit); a caller that arrives while a
// round is in flight waits for the round after it, since its writes may follow that round's tick.
// A caller that wrote nothing (a re-delivery answered from the record it read) is covered too:
// what it read was on the primary before the tick.
import type { RedisClient } from './connections.js';

export type AckVerdict =
  | { readonly kind: 'acknowledged'; readonly replicas: number }
  /** Fewer replicas than wanted answered within the bound (WAIT returns a count, not an error). */
  | { readonly kind: 'short'; readonly replicas: number; readonly wanted: number };

/** What WAIT's count means against the replicas wanted. */
export function judgeAcknowledgement(acknowledged: number, wanted: number): AckVerdict {
  return acknowledged >= wanted ? { kind: 'acknowledged', replicas: acknowledged } : { kind: 'short', replicas: acknowledged, wanted };
}

/** WAIT's time-out for the time left: at least 1 ms, since WAIT n 0 blocks for ever. */
export function waitTimeoutMs(remainingMs: number): number {
  return Math.max(1, Math.floor(remainingMs));
}

export interface ReplicaAck {
  /** The replicas wanted (REDIS_REPLICAS_ACK). */
  readonly wanted: number;
  /**
   * Resolves with the verdict on every write Redis acknowledged to this process before the call,
   * waiting at most until `deadline` (the clock's time); rejects when Redis does not answer.
   */
  acknowledge(deadline: number): Promise<AckVerdict>;
}

interface Round {
  deadline: number;
  readonly answer: Promise<number>;
  readonly settle: (count: number | Error) => void;
}

/**
 * The group commit over `redis`, a connection used for nothing else: each round INCRs `tickKey`
 * and WAITs for `wanted` replicas until the latest deadline of the callers in it.
 */
export function replicaAck(redis: RedisClient, tickKey: string, wanted: number, clock: () => number): ReplicaAck {
  let next: Round | undefined;
  let running = false;

  const newRound = (deadline: number): Round => {
    let settle: (count: number | Error) => void = () => {};
    const answer = new Promise<number>((ok, fail) => {
      settle = (count) => (count instanceof Error ? fail(count) : ok(count));
    });
    return { deadline, answer, settle };
  };

  const run = async (): Promise<void> => {
    running = true;
    for (let round = next; round !== undefined; round = next) {
      next = undefined;
      try {
        // One round trip: the tick, then WAIT for it on the same connection.
        const replies = await redis
          .pipeline()
          .incr(tickKey)
          .wait(wanted, waitTimeoutMs(round.deadline - clock()))
          .exec();
        const [tick, waited] = replies ?? [];
        const failure = tick?.[0] ?? waited?.[0];
        if (failure) throw failure;
        round.settle(Number(waited?.[1]));
      } catch (err) {
        round.settle(err instanceof Error ? err : new Error(String(err)));
      }
    }
    running = false;
  };

  return {
    wanted,
    async acknowledge(deadline) {
      const round = next ?? newRound(deadline);
      round.deadline = Math.max(round.deadline, deadline);
      next = round;
      if (!running) void run();
      return judgeAcknowledgement(await round.answer, wanted);
    },
  };
}
