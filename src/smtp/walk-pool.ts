// The listener's side of the MIME walk thread (walk-thread.ts): each message's bytes are copied
// to the thread as they arrive, and the facts come back. At most IN_FLIGHT_BYTES of a message
// wait in the thread's queue; past that the message's stream waits (bounded memory, and a slow
// walk slows its own client only). If the thread dies, the walks in flight fail (451, try
// later) and the next message starts a new thread.
import { Writable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../log.js';
import type { MimeWalk, WalkResult } from './mime-walk.js';
import type { FromWalkThread, ToWalkThread } from './walk-protocol.js';

const IN_FLIGHT_BYTES = 512 * 1024;

interface Pending {
  settle(result: WalkResult | Error): void;
  ack(bytes: number): void;
}

export class WalkThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly logger: Logger) {}

  startWalk(): MimeWalk {
    const worker = this.running();
    const id = this.nextId++;
    let inFlight = 0;
    let resume: (() => void) | undefined;
    const release = (): void => {
      const next = resume;
      resume = undefined;
      next?.();
    };
    const result = new Promise<WalkResult>((resolve, reject) => {
      this.pending.set(id, {
        settle: (outcome) => {
          this.pending.delete(id);
          release(); // a stream waiting for room goes on: the rest is not walked
          if (outcome instanceof Error) reject(outcome);
          else resolve(outcome);
        },
        ack: (bytes) => {
          inFlight -= bytes;
          if (inFlight <= IN_FLIGHT_BYTES) release();
        },
      });
    });
    const send = (message: ToWalkThread, transfer?: ArrayBuffer[]): void => worker.postMessage(message, transfer);
    send({ op: 'start', id });
    const input = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        if (!this.pending.has(id)) return done(); // settled (or the thread died): nothing to walk
        const copy = new Uint8Array(chunk); // the thread gets its own bytes
        inFlight += copy.byteLength;
        send({ op: 'chunk', id, chunk: copy }, [copy.buffer]);
        if (inFlight <= IN_FLIGHT_BYTES) done();
        else resume = () => done();
      },
      final: (done) => {
        if (this.pending.has(id)) send({ op: 'end', id });
        done();
      },
    });
    return {
      input,
      result,
      abort: () => {
        if (this.pending.has(id)) send({ op: 'abort', id });
        this.pending.get(id)?.settle(new Error('the walk was aborted'));
      },
    };
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private running(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = startThread();
    worker.unref(); // never what keeps the process alive
    worker.on('message', (message: FromWalkThread) => this.onMessage(message));
    worker.on('error', (err) => this.logger.error({ err, event: 'smtp.walk_thread_error' }, 'MIME walk thread failed'));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const lost = [...this.pending.values()];
      for (const walk of lost) walk.settle(new Error(`the MIME walk thread exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }

  private onMessage(message: FromWalkThread): void {
    const walk = this.pending.get(message.id);
    if (walk === undefined) return;
    switch (message.op) {
      case 'ack':
        return walk.ack(message.bytes);
      case 'walked':
        return walk.settle({
          kind: 'walked',
          subject: message.subject,
          parts: message.parts.map((p) => ({ ...p, firstBytes: Buffer.from(p.firstBytes) })),
        });
      case 'unparseable':
        return walk.settle({ kind: 'unparseable', why: message.why });
      case 'failed':
        return walk.settle(new Error(`the MIME walk failed: ${message.message}`));
    }
  }
}

/**
 * The compiled thread (dist/smtp/walk-thread.js); from the TypeScript sources (tests run them)
 * the thread loads its .ts file through tsx, as the test runner itself does.
 */
function startThread(): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const file = new URL(fromSource ? './walk-thread.ts' : './walk-thread.js', import.meta.url);
  return new Worker(file, {
    execArgv: fromSource ? ['--import', 'tsx'] : [],
    // a young generation as small as the listener's own (--max-semi-space-size=8)
    resourceLimits: { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 128 },
  });
}
