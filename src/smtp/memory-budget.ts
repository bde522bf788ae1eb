// One byte budget for everything the listener holds for messages in flight, whatever the number
// of clients: each message's collector reserves what it keeps (header block, spool batch, what
// authentication buffers) as it grows. Past the budget a message is refused with 452 4.3.1 and
// new transactions are refused at MAIL FROM until room is free again.

import { getDefaultHighWaterMark } from 'node:stream';
import { DEFAULT_BATCH_BYTES } from '../raw-store/file-store.js';
import { PART_BYTES } from '../raw-store/s3-store.js';
import { MAX_HEADER_SCAN_BYTES } from './header-fields.js';
import { heldBytes, MAX_LINE_BYTES } from './message-collector.js';

/** Room a new transaction needs in the memory budget: a header block and a spool batch. */
export const ADMIT_BYTES = 512 * 1024;
/** The largest chunk the collector takes at once: a socket read hands at most 64 KiB. */
export const MAX_CHUNK_BYTES = 64 * 1024;

export interface Reservation {
  /** Sets what this message holds; false, and nothing changed, when the budget lacks the room. */
  resize(bytes: number): boolean;
  /** Returns the whole reservation (the message was answered or the client left). */
  release(): void;
}

export class MemoryBudget {
  private used = 0;

  /**
   * @param limitBytes what all messages in flight may hold together
   * @param admitBytes room a new transaction needs to be admitted (a message holds at least a batch)
   */
  constructor(
    readonly limitBytes: number,
    private readonly admitBytes: number,
  ) {}

  get usedBytes(): number {
    return this.used;
  }

  /** Whether a new transaction may start. */
  admits(): boolean {
    return this.used + this.admitBytes <= this.limitBytes;
  }

  open(): Reservation {
    let held = 0;
    return {
      resize: (bytes) => {
        if (bytes > held && this.used + bytes - held > this.limitBytes) return false;
        this.used += bytes - held;
        held = bytes;
        return true;
      },
      release: () => {
        this.used -= held;
        held = 0;
      },
    };
  }
}

/** One listener process's budget when SMTP_PROCESSES share SMTP_MEMORY_BUDGET_BYTES: the whole ÷ N, rounded down. */
export function budgetShareBytes(limitBytes: number, processes: number): number {
  return Math.floor(limitBytes / Math.max(1, processes));
}

/**
 * What one message of the largest kind holds at once, so the least budget a listener process may
 * have: the collector's accounting (heldBytes) with each part at its largest (a 1 MiB header block,
 * a 1 MiB unfinished line, a chunk, what the store buffers: with S3 a whole upload part and its
 * stream's buffer, with files two spool batches), and the admission room a new transaction needs.
 */
export function minimumShareBytes(store: 'file' | 's3'): number {
  const buffered = store === 's3' ? PART_BYTES + getDefaultHighWaterMark(false) : 2 * DEFAULT_BATCH_BYTES;
  return heldBytes({ head: MAX_HEADER_SCAN_BYTES, line: MAX_LINE_BYTES, buffered, chunk: MAX_CHUNK_BYTES }) + ADMIT_BYTES;
}
