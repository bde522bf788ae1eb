// What a bench run measures and how much load each measurement gets. `full` is the default
// (about 10 minutes on 2 cores), `quick` is a smaller sweep (under a minute), `tiny` is the
// test suite's smoke run (a handful of messages).
import type { ConnectionMode } from './load.js';
import type { SizeName } from './messages.js';

type PerSize<T> = Readonly<Record<SizeName, T>>;

export interface BenchPlan {
  readonly name: 'full' | 'quick' | 'tiny';
  readonly sizes: readonly SizeName[];
  /** Accept rate, gateway listener (no worker running) and sink, driven identically. */
  readonly accept: {
    readonly sessions: readonly number[];
    readonly modes: readonly ConnectionMode[];
    readonly durationMs: PerSize<number>;
    readonly maxMessages: PerSize<number>;
  };
  /** Jobs per worker process (WORKER_CONCURRENCY). */
  readonly workerConcurrency: number;
  /** Worker-stage throughput: the queue is preloaded, then 1 (or 2, ...) worker processes drain it (0 messages: skipped). */
  readonly drain:
    | {
        readonly workers: readonly number[];
        readonly messages: PerSize<number>;
        /**
         * Letters each worker process handles before the measured drain: a fresh process pays
         * for loading and optimising its code over its first hundreds of letters, once, and the
         * drain measures the steady state (two processes would otherwise pay it twice).
         */
        readonly warmUpPerWorker: PerSize<number>;
      }
    | undefined;
  /** Worker processes running during the end-to-end runs below. */
  readonly e2eWorkers: number;
  /** Latency below saturation: an open-loop offered rate. */
  readonly fixedLoad: { readonly sessions: number; readonly ratePerSec: PerSize<number>; readonly durationMs: PerSize<number> } | undefined;
  /** Latency and letters/s at saturation: closed loop, every session sending back to back. */
  readonly saturation: { readonly sessions: number; readonly messages: PerSize<number> } | undefined;
  /** Restart the listener before each size, so memory figures are per size (costs ~1 s each). */
  readonly freshListenerPerSize: boolean;
  /** Listener memory probe: a fresh listener, `sessions` clients each sending 10 MB messages at once. */
  readonly rssProbe: { readonly sessions: number; readonly messages: number } | undefined;
  /** Bound on waiting for a run's letters to be created. */
  readonly settleTimeoutMs: number;
}

const ALL_SIZES: readonly SizeName[] = ['10KB', '1MB', '10MB'];

export const PLANS: Readonly<Record<BenchPlan['name'], BenchPlan>> = {
  full: {
    name: 'full',
    sizes: ALL_SIZES,
    accept: {
      sessions: [1, 8, 32],
      modes: ['reuse', 'per-connection'],
      durationMs: { '10KB': 3000, '1MB': 4000, '10MB': 6000 },
      maxMessages: { '10KB': 50_000, '1MB': 5000, '10MB': 500 },
    },
    workerConcurrency: 4,
    drain: {
      workers: [1, 2],
      messages: { '10KB': 3000, '1MB': 400, '10MB': 60 },
      warmUpPerWorker: { '10KB': 300, '1MB': 40, '10MB': 6 },
    },
    e2eWorkers: 2,
    fixedLoad: {
      sessions: 8,
      ratePerSec: { '10KB': 50, '1MB': 20, '10MB': 2 },
      durationMs: { '10KB': 10_000, '1MB': 10_000, '10MB': 15_000 },
    },
    saturation: { sessions: 8, messages: { '10KB': 2000, '1MB': 200, '10MB': 24 } },
    freshListenerPerSize: true,
    rssProbe: { sessions: 32, messages: 64 },
    settleTimeoutMs: 120_000,
  },
  quick: {
    name: 'quick',
    sizes: ALL_SIZES,
    accept: {
      sessions: [8],
      modes: ['reuse'],
      durationMs: { '10KB': 1000, '1MB': 1500, '10MB': 2000 },
      maxMessages: { '10KB': 20_000, '1MB': 2000, '10MB': 200 },
    },
    workerConcurrency: 4,
    drain: { workers: [1, 2], messages: { '10KB': 300, '1MB': 0, '10MB': 0 }, warmUpPerWorker: { '10KB': 100, '1MB': 0, '10MB': 0 } },
    e2eWorkers: 2,
    fixedLoad: { sessions: 8, ratePerSec: { '10KB': 50, '1MB': 20, '10MB': 2 }, durationMs: { '10KB': 1500, '1MB': 2000, '10MB': 2000 } },
    saturation: undefined,
    freshListenerPerSize: false,
    rssProbe: { sessions: 32, messages: 32 },
    settleTimeoutMs: 30_000,
  },
  tiny: {
    name: 'tiny',
    sizes: ['10KB'],
    accept: {
      sessions: [2],
      modes: ['reuse'],
      durationMs: { '10KB': 2000, '1MB': 2000, '10MB': 2000 },
      maxMessages: { '10KB': 10, '1MB': 10, '10MB': 10 },
    },
    workerConcurrency: 2,
    drain: undefined,
    e2eWorkers: 1,
    fixedLoad: { sessions: 2, ratePerSec: { '10KB': 20, '1MB': 20, '10MB': 2 }, durationMs: { '10KB': 300, '1MB': 300, '10MB': 300 } },
    saturation: undefined,
    freshListenerPerSize: false,
    rssProbe: undefined,
    settleTimeoutMs: 15_000,
  },
};
