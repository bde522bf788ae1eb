// Where a message's bytes go while they arrive. Small messages stay in memory; once a message
// passes one batch, its bytes are appended to a Redis spool key batch by batch, so a listener's
// memory does not grow with message size × concurrent clients. Acceptance turns the spool into
// the stored raw message inside Redis (IntakeStore.create); an abandoned spool expires.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { IntakeKeys } from './keys.js';

/** The message body as acceptance gets it: in memory, or already in Redis under a spool key. */
export type SpooledBody = { readonly bytes: Buffer } | { readonly spoolKey: string };

export interface RawSpool {
  /** Takes a chunk; resolves when it may be reused (backpressure while a batch is written). */
  write(chunk: Buffer): Promise<void> | undefined;
  /** The whole body, once every byte was written. */
  finish(): Promise<SpooledBody>;
  /** Forgets the message (refused, or the session ended). */
  discard(): Promise<void>;
  /** Bytes held in memory right now (the batch being collected and the one being written). */
  readonly buffered: number;
}

export interface SpoolOptions {
  readonly batchBytes: number;
  /** A spool nobody accepted or discarded (a listener died mid-DATA) expires after this. */
  readonly ttlMs: number;
}

export function redisSpool(redis: Redis, keys: IntakeKeys, options: SpoolOptions): () => RawSpool {
  return () => {
    const key = keys.spool(randomUUID());
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let flushed = false;
    let inFlight = 0;
    const flush = async (): Promise<void> => {
      const batch = Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      inFlight = batch.length;
      try {
        await redis.multi().append(key, batch).pexpire(key, options.ttlMs).exec();
      } finally {
        inFlight = 0;
      }
      flushed = true;
    };
    return {
      write(chunk) {
        pending.push(chunk);
        pendingBytes += chunk.length;
        return pendingBytes >= options.batchBytes ? flush() : undefined;
      },
      async finish() {
        if (!flushed) return { bytes: Buffer.concat(pending) };
        if (pendingBytes > 0) await flush();
        return { spoolKey: key };
      },
      async discard() {
        pending = [];
        pendingBytes = 0;
        if (flushed) await redis.del(key);
      },
      get buffered() {
        return pendingBytes + inFlight;
      },
    };
  };
}
