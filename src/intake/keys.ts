// Every Redis key the gateway writes besides BullMQ's own (`<prefix>:intake:*`).
// One hash-tagged prefix keeps them in one Redis Cluster slot with the queue.
import type { IntakeState } from './record.js';

export interface IntakeKeys {
  record(intakeId: string): string;
  /** An erased intake's tombstone (erase.ts): when, why, by whom; no personal data. */
  erased(intakeId: string): string;
  /** A message's bytes while they arrive (raw-spool.ts). */
  spool(id: string): string;
  /** Sorted set of intake ids in a state, scored by the time they entered it. */
  stateIndex(state: IntakeState): string;
  /** The counter a replica acknowledgement writes before its WAIT (src/redis/replica-ack.ts). */
  readonly replicaTick: string;
  /** Where a replica acknowledgement's marks go, one per session (src/redis/replica-ack.ts). */
  readonly replicaMarks: string;
  /** A sender's intakes of the last hour, their sizes, and its open intakes (sender-limits.ts). */
  senderWindow(senderId: string): string;
  senderSizes(senderId: string): string;
  senderOpen(senderId: string): string;
}

export function intakeKeys(prefix: string): IntakeKeys {
  return {
    record: (id) => `${prefix}:record:${id}`,
    erased: (id) => `${prefix}:erased:${id}`,
    spool: (id) => `${prefix}:spool:${id}`,
    stateIndex: (state) => `${prefix}:state:${state}`,
    replicaTick: `${prefix}:replica-tick`,
    replicaMarks: `${prefix}:replica-mark`,
    senderWindow: (id) => `${prefix}:sender:${id}:window`,
    senderSizes: (id) => `${prefix}:sender:${id}:sizes`,
    senderOpen: (id) => `${prefix}:sender:${id}:open`,
  };
}
