// A bounded pool of checker threads (inspector-thread.ts). Each PDF is read in a thread with a
// V8 heap limit (resourceLimits: V8 collects garbage before it gives up), a watch on the thread's
// ArrayBuffers (decompressed streams live there, outside the heap limit) and a wall-clock limit;
// a thread past a limit is terminated and replaced, and the PDF is "too complex". Past the
// wall-clock limit only after a second chance, when other checks ran beside it: then the overrun
// may be our load, not the sender's file, so the PDF is checked again alone (no other check
// starts, and the running ones are waited for) with twice the limit, within the same job run;
// only a second overrun is "too complex". A check that ran alone overran on its own. While one
// re-check waits or runs, a further one is not queued behind it (every other check would wait
// for both): that caller gets PdfRecheckLater and its job comes back later, without spending an
// attempt. A thread that dies for any other reason is a fault of ours: the promise rejects and
// the intake fails (replayable), never a rejection.
import { Worker } from 'node:worker_threads';
import type { PdfFacts } from './facts.js';

export interface PdfCheckerOptions {
  /** Threads reading PDFs at once (more callers wait their turn). */
  readonly threads: number;
  /** Wall-clock bound on one PDF. */
  readonly timeoutMs: number;
  /** Bound on one thread's V8 heap, and separately on its ArrayBuffers. */
  readonly memoryMb: number;
  /** Tests only: another thread entry (e.g. one that crashes). */
  readonly threadEntry?: URL;
}

export interface PdfChecker {
  inspect(bytes: Uint8Array): Promise<PdfFacts>;
  /** Starts the threads now rather than at the first PDFs (a thread takes 0.3–1 s to load). */
  warm(): Promise<void>;
  close(): Promise<void>;
}

export class PdfCheckerError extends Error {
  override readonly name = 'PdfCheckerError';
}

/** An overrun that deserves a second chance while another re-check holds the pool: check the PDF again later. */
export class PdfRecheckLater extends Error {
  override readonly name = 'PdfRecheckLater';

  constructor(readonly retryInMs: number) {
    super(`another PDF is being checked again alone; this one is checked again in ${retryInMs} ms`);
  }
}

/** Re-checks waiting or running at once; past it a re-check is deferred, not queued. */
const MAX_RECHECKS = 1;

const MEMORY_POLL_MS = 20;
/** A new thread loads pdf.js and pdf-lib before its first PDF; past this, something is wrong with us. */
const THREAD_START_TIMEOUT_MS = 60_000;
const MiB = 1024 * 1024;

// Compiled, the thread is dist/pdf/inspector-thread.js; run from sources (tests, tsx), the .ts
// file beside this one, type-stripped by Node with a hook that maps `./x.js` imports to `./x.ts`.
const fromSources = import.meta.url.endsWith('.ts');
const THREAD_ENTRY = new URL(fromSources ? './inspector-thread.ts' : './inspector-thread.js', import.meta.url);
const THREAD_EXEC_ARGV = fromSources ? ['--import', new URL('./source-thread-hooks.mjs', import.meta.url).href] : [];

export function createPdfChecker(options: PdfCheckerOptions): PdfChecker {
  const idle: Worker[] = [];
  const busy = new Set<Worker>();
  const waiting: (() => void)[] = [];
  let starting = 0;
  let closed = false;
  /** Re-checks running or waiting to run alone: while any is, no other check starts. */
  let alone = 0;
  /** Re-checks run one after the other. */
  let aloneTurn: Promise<unknown> = Promise.resolve();
  /** Callers waiting for the pool to empty (a re-check about to run alone). */
  const waitingForEmpty: (() => void)[] = [];
  /** The checks running now, each told whether another ran beside it at any moment. */
  const running = new Set<{ overlapped: boolean }>();
  const wakeAll = (): void => {
    for (const wake of waiting.splice(0)) wake();
  };

  const spawn = async (): Promise<Worker> => {
    const worker = new Worker(options.threadEntry ?? THREAD_ENTRY, {
      execArgv: THREAD_EXEC_ARGV,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
      stdout: true,
      stderr: true,
    });
    // pdf.js prints warnings about the file it reads: they are the file's words, not ours.
    worker.stdout.resume();
    worker.stderr.resume();
    worker.unref();
    try {
      await ready(worker);
    } catch (err) {
      void worker.terminate();
      throw err;
    }
    return worker;
  };

  const acquire = async (): Promise<Worker> => {
    while (alone > 0 || (idle.length === 0 && busy.size + starting >= options.threads)) {
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (closed) throw new PdfCheckerError('the PDF checker is closed');
    }
    const reused = idle.pop();
    if (reused !== undefined) {
      busy.add(reused);
      return reused;
    }
    // Count the thread as busy while it starts, so concurrent callers do not spawn past the bound.
    starting += 1;
    try {
      const worker = await spawn();
      busy.add(worker);
      return worker;
    } catch (err) {
      waiting.shift()?.();
      throw err;
    } finally {
      starting -= 1;
    }
  };

  const warm = async (): Promise<void> => {
    const count = Math.max(0, options.threads - idle.length - busy.size - starting);
    starting += count;
    try {
      const started = await Promise.allSettled(Array.from({ length: count }, () => spawn()));
      for (const result of started) {
        if (result.status !== 'fulfilled') continue; // spawned again, and reported, when a PDF needs it
        if (closed) void result.value.terminate();
        else idle.push(result.value);
      }
    } finally {
      starting -= count;
    }
    for (let i = 0; i < count; i += 1) waiting.shift()?.();
  };

  const release = (worker: Worker, reusable: boolean): void => {
    busy.delete(worker);
    if (reusable && !closed) idle.push(worker);
    else void worker.terminate();
    if (busy.size + starting === 0) for (const wake of waitingForEmpty.splice(0)) wake();
    if (alone === 0) waiting.shift()?.();
  };

  const runOn = async (worker: Worker, bytes: Uint8Array, timeoutMs: number): Promise<{ facts: PdfFacts; overlapped: boolean }> => {
    let reusable = false;
    const check = { overlapped: running.size > 0 };
    for (const other of running) other.overlapped = true;
    running.add(check);
    try {
      const outcome = await run(worker, bytes, timeoutMs);
      reusable = outcome.reusable;
      return { facts: outcome.facts, overlapped: check.overlapped };
    } finally {
      running.delete(check);
      release(worker, reusable);
    }
  };

  /** The second chance of a PDF that overran: alone in the pool, with twice the limit. */
  const inspectAlone = (bytes: Uint8Array): Promise<PdfFacts> => {
    alone += 1;
    const turn = aloneTurn.then(async () => {
      while (busy.size + starting > 0) await new Promise<void>((resolve) => waitingForEmpty.push(resolve));
      if (closed) throw new PdfCheckerError('the PDF checker is closed');
      const reused = idle.pop();
      let worker: Worker;
      if (reused === undefined) {
        starting += 1;
        try {
          worker = await spawn();
        } finally {
          starting -= 1;
        }
      } else {
        worker = reused;
      }
      busy.add(worker);
      return (await runOn(worker, bytes, 2 * options.timeoutMs)).facts;
    });
    const done = turn.finally(() => {
      alone -= 1;
      if (alone === 0) wakeAll();
    });
    aloneTurn = done.catch(() => undefined);
    return done;
  };

  const run = (worker: Worker, bytes: Uint8Array, timeoutMs: number): Promise<{ facts: PdfFacts; reusable: boolean }> =>
    new Promise((resolve, reject) => {
      let settled = false;
      const finish = (outcome: { facts: PdfFacts; reusable: boolean } | Error): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(watch);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (outcome instanceof Error) reject(outcome);
        else resolve(outcome);
      };
      const limitHit = (limit: 'time' | 'memory'): void => finish({ facts: { kind: 'too-complex', limit }, reusable: false });
      const onMessage = (message: unknown): void => {
        const facts: unknown = typeof message === 'object' && message !== null ? Reflect.get(message, 'facts') : undefined;
        if (isFacts(facts)) finish({ facts, reusable: true });
        else finish(new PdfCheckerError('the checker thread answered something that is not a PDF report'));
      };
      const onError = (err: Error): void => {
        if (Reflect.get(err, 'code') === 'ERR_WORKER_OUT_OF_MEMORY') limitHit('memory');
        else finish(new PdfCheckerError(`the checker thread failed: ${err.message}`, { cause: err }));
      };
      const onExit = (code: number): void => finish(new PdfCheckerError(`the checker thread exited (code ${code}) without an answer`));
      const timer = setTimeout(() => limitHit('time'), timeoutMs);
      const watch = setInterval(() => {
        worker.getHeapStatistics().then(
          (s) => {
            if (s.external_memory > options.memoryMb * MiB) limitHit('memory');
          },
          () => undefined,
        );
      }, MEMORY_POLL_MS);
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      // A copy of its own (a Buffer may be a view into a shared pool), moved, not cloned, to the thread.
      const copy = new Uint8Array(bytes);
      worker.postMessage({ bytes: copy }, [copy.buffer]);
    });

  return {
    warm,
    async inspect(bytes) {
      if (closed) throw new PdfCheckerError('the PDF checker is closed');
      const { facts, overlapped } = await runOn(await acquire(), bytes, options.timeoutMs);
      if (facts.kind !== 'too-complex' || facts.limit !== 'time' || !overlapped) return facts;
      if (alone >= MAX_RECHECKS) throw new PdfRecheckLater(2 * options.timeoutMs);
      return inspectAlone(bytes);
    },
    async close() {
      closed = true;
      wakeAll();
      for (const wake of waitingForEmpty.splice(0)) wake();
      await Promise.all([...idle.splice(0), ...busy].map((w) => w.terminate()));
    },
  };
}

/** Resolves when the thread says it is loaded; rejects when it fails or stays silent too long. */
function ready(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error): void => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', done).off('exit', onExit);
      if (err === undefined) resolve();
      else reject(err);
    };
    const onMessage = (message: unknown): void => {
      if (typeof message === 'object' && message !== null && Reflect.get(message, 'ready') === true) done();
      else done(new PdfCheckerError('the checker thread spoke before it was ready'));
    };
    const onExit = (code: number): void => done(new PdfCheckerError(`the checker thread exited (code ${code}) while starting`));
    const timer = setTimeout(() => done(new PdfCheckerError('the checker thread did not start in time')), THREAD_START_TIMEOUT_MS);
    worker.on('message', onMessage).on('error', done).on('exit', onExit);
  });
}

const FACT_KINDS: readonly unknown[] = ['opened', 'password', 'damaged', 'too-complex'];

/** The thread is ours, but what crosses a thread boundary is checked, not assumed. */
function isFacts(value: unknown): value is PdfFacts {
  return typeof value === 'object' && value !== null && FACT_KINDS.includes(Reflect.get(value, 'kind'));
}
