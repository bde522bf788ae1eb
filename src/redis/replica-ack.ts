// Replica acknowledgement (REDIS_REPLICAS_ACK): a write counts once N replicas hold it, so the
// loss of the primary machine loses nothing that was promised.
//
// Redis's WAIT covers the writes made before it *on its own connection*, and blocks that
// connection until it answers. So it never runs on a shared writer connection (every session
// would wait behind it); it runs on a connection of its own that first writes a tick and then
// waits for it. Replication is one ordered stream, but only on one primary: during a failover
// the tick connection may already be on the new primary while the writer still writes to the
// old one, whose writes the new one never gets. So each session proves that the tick's server
// holds its writes:
// - it notes the writer's socket before its first write (or read), and after its last one
//   writes a mark, a key of its own, on that socket. The socket is still the one it noted, so
//   the writes and the mark went, in that order, to one server (a reconnect in between, or a
//   command resent on a new socket, changes the socket: the verdict is short);
// - the round reads the marks of its sessions, INCRs the tick and WAITs, in one pipeline on the
//   tick connection. A server holds a mark only through the history of the server that wrote it
//   (no other command writes that key), and that history has the session's writes before the
//   mark; the WAIT then covers them too. A missing mark is short.
// A round serves every caller whose mark was written when it starts (a group commit); a caller
// that arrives while a round is in flight waits for the round after it.
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { RedisClient } from './connections.js';

export type AckVerdict =
  | { readonly kind: 'acknowledged'; readonly replicas: number }
  /**
   * Fewer replicas than wanted answered within the bound (WAIT returns a count, not an error),
   * or (`elsewhere`) the server that waited does not hold the session's writes: then no replica
   * is known to hold them.
   */
  | { readonly kind: 'short'; readonly replicas: number; readonly wanted: number; readonly elsewhere: boolean };

/**
 * What WAIT's count means against the replicas wanted, for a session whose writes the tick's
 * server holds (`held`: its mark was there) or not.
 */
export function judgeAcknowledgement(acknowledged: number, wanted: number, held: boolean): AckVerdict {
  if (!held) return { kind: 'short', replicas: 0, wanted, elsewhere: true };
  return acknowledged >= wanted
    ? { kind: 'acknowledged', replicas: acknowledged }
    : { kind: 'short', replicas: acknowledged, wanted, elsewhere: false };
}

/** WAIT's time-out for the time left: at least 1 ms, since WAIT n 0 blocks for ever. */
export function waitTimeoutMs(remainingMs: number): number {
  return Math.max(1, Math.floor(remainingMs));
}

/** How long a mark outlives its session's deadline; a round that reads it later finds none (short). */
const MARK_GRACE_MS = 60_000;

export interface ReplicaAck {
  /** The replicas wanted (REDIS_REPLICAS_ACK). */
  readonly wanted: number;
  /** Called before a session's first write or read on the writer connection. */
  begin(): AckSession;
}

export interface AckSession {
  /**
   * After the session's last write: resolves with the verdict on what the session wrote and read
   * on the writer since begin(), waiting at most until `deadline` (the clock's time); rejects
   * when Redis does not answer.
   */
  acknowledge(deadline: number): Promise<AckVerdict>;
}

export interface ReplicaAckOptions {
  /** A connection used for nothing else: WAIT blocks it. */
  readonly tick: RedisClient;
  /** The connection the sessions' writes go on. */
  readonly writer: RedisClient;
  /** The counter each round INCRs before its WAIT. */
  readonly tickKey: string;
  /** Where this process's marks go, `<prefix>:replica-mark` (a mark is `<markPrefix>:<process>:<n>`). */
  readonly markPrefix: string;
  /** On a cluster: the slot of the tick and the marks (one hash-tagged prefix). */
  readonly slot?: number | undefined;
  readonly wanted: number;
  readonly clock: () => number;
}

interface Round {
  deadline: number;
  readonly marks: string[];
  readonly answer: Promise<{ readonly count: number; readonly held: ReadonlySet<string> }>;
  readonly settle: (result: { readonly count: number; readonly held: ReadonlySet<string> } | Error) => void;
}

/** The socket the writer's commands for the marks' slot go on now (undefined before any). */
export function writerSocket(writer: RedisClient, slot: number | undefined): object | undefined {
  if (!(writer instanceof Cluster)) return writer.stream;
  const master = slot === undefined ? undefined : writer.slots[slot]?.[0];
  if (master === undefined) return undefined;
  return writer.nodes('master').find((node) => `${node.options.host}:${node.options.port}` === master)?.stream;
}

/** The group commit: each round reads its sessions' marks, INCRs the tick and WAITs until the latest deadline among them. */
export function replicaAck(options: ReplicaAckOptions): ReplicaAck {
  const { tick, writer, tickKey, wanted, clock, slot } = options;
  const process = randomUUID();
  let marks = 0;
  let next: Round | undefined;
  let running = false;

  const newRound = (deadline: number): Round => {
    let settle: Round['settle'] = () => {};
    const answer = new Promise<{ count: number; held: ReadonlySet<string> }>((ok, fail) => {
      settle = (result) => (result instanceof Error ? fail(result) : ok(result));
    });
    return { deadline, marks: [], answer, settle };
  };

  const run = async (): Promise<void> => {
    running = true;
    for (let round = next; round !== undefined; round = next) {
      next = undefined;
      try {
        // One round trip: the marks, the tick, then WAIT for it on the same connection.
        const replies = await tick
          .pipeline()
          .mget(...round.marks)
          .incr(tickKey)
          .wait(wanted, waitTimeoutMs(round.deadline - clock()))
          .exec();
        const [found, ticked, waited] = replies ?? [];
        const failure = found?.[0] ?? ticked?.[0] ?? waited?.[0];
        if (failure) throw failure;
        const values = Array.isArray(found?.[1]) ? found[1] : [];
        const held = new Set(round.marks.filter((_, i) => values[i] !== null && values[i] !== undefined));
        round.settle({ count: Number(waited?.[1]), held });
      } catch (err) {
        round.settle(err instanceof Error ? err : new Error(String(err)));
      }
    }
    running = false;
  };

  return {
    wanted,
    begin() {
      const socket = writerSocket(writer, slot);
      return {
        async acknowledge(deadline) {
          marks += 1;
          const mark = `${options.markPrefix}:${process}:${marks}`;
          await writer.set(mark, '1', 'PX', Math.max(1, Math.ceil(deadline - clock())) + MARK_GRACE_MS);
          // Another socket than at begin(): the writes and the mark may be on different servers.
          if (socket === undefined || writerSocket(writer, slot) !== socket) return judgeAcknowledgement(0, wanted, false);
          const round = next ?? newRound(deadline);
          round.deadline = Math.max(round.deadline, deadline);
          round.marks.push(mark);
          next = round;
          if (!running) void run();
          const { count, held } = await round.answer;
          return judgeAcknowledgement(count, wanted, held.has(mark));
        },
      };
    },
  };
}
