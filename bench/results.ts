// The shape of a bench run's results (written as JSON, rendered by report.ts).
import type { EndToEnd } from './intake-times.js';
import type { ConnectionMode, LoadResult } from './load.js';
import type { SizeName } from './messages.js';
import type { PdfCost } from './pdf-cost.js';
import type { ProcessUsage, WindowUsage } from './proc-stats.js';

/**
 * Per process name (listener, worker-1, sandbox, redis, sink, generator): CPU and peak RSS. The
 * listener (and Haraka) is a process tree: CPU of the primary and all its listener processes,
 * peak RSS of the largest listener process, the primary's own beside it (peakRootRssBytes).
 */
export type Usage = Readonly<Record<string, ProcessUsage>>;

/** Cores kept busy during a measurement: by the bench's own processes, and by everything on the machine. */
export interface CoresBusy {
  readonly ours: number;
  readonly machine: number;
}

export function coresBusy(w: WindowUsage): CoresBusy {
  const ours = Object.values(w.processes).reduce((sum, p) => sum + p.cpuSeconds, 0);
  return { ours: w.wallSeconds > 0 ? ours / w.wallSeconds : 0, machine: w.machineBusyCores };
}

export type LoadSummary = Omit<LoadResult, 'intakeIds'>;

/** One server driven in an accept cell: what the generator saw, and its processes' usage. */
export interface ServerRun {
  readonly load: LoadSummary;
  readonly usage: Usage;
  readonly cores: CoresBusy;
}

/** The peers `--peers` drives in every accept cell, after the gateway, in this order. */
export const PEER_NAMES = ['haraka', 'postfix'] as const;
export type PeerName = (typeof PEER_NAMES)[number];
export const PEER_LABEL: Readonly<Record<PeerName, string>> = { haraka: 'Haraka', postfix: 'Postfix' };

export interface AcceptCell {
  readonly size: SizeName;
  readonly sessions: number;
  readonly mode: ConnectionMode;
  readonly sink: ServerRun;
  readonly gateway: ServerRun;
  /** Haraka with SPF and DKIM verification (`--peers` only), driven right after the gateway. */
  readonly haraka?: ServerRun;
  /**
   * The private Postfix (`--peers` only, where it can run), driven after Haraka; its window
   * ends once its queue is empty, so its CPU includes discarding what it accepted.
   */
  readonly postfix?: ServerRun;
  /** Gateway accepted per second ÷ sink accepted per second. */
  readonly ratio: number;
}

export interface EndToEndRun {
  readonly size: SizeName;
  readonly kind: 'drain' | 'fixed' | 'saturation';
  readonly workers: number;
  readonly sessions: number;
  /** Offered messages per second (fixed load only). */
  readonly offeredPerSec: number | undefined;
  readonly load: LoadSummary;
  readonly e2e: EndToEnd;
  readonly usage: Usage;
  readonly cores: CoresBusy;
}

/**
 * A fresh listener's RSS before and while `sessions` clients send 10 MB messages at once, per
 * process: the largest listener process, and the primary's own (absent with one listener process).
 */
export interface RssProbe {
  readonly sessions: number;
  readonly load: LoadSummary;
  readonly idleRssBytes: number;
  readonly peakRssBytes: number;
  readonly primaryIdleRssBytes?: number;
  readonly primaryPeakRssBytes?: number;
}

export type PostfixMeta = { readonly version: string; readonly mainCf: string; readonly masterCf: string } | { readonly skipped: string };

export interface Goal {
  readonly name: string;
  readonly target: string;
  readonly measured: string;
  /** undefined: not measured in this run. */
  readonly met: boolean | undefined;
}

export interface BenchResult {
  readonly meta: {
    readonly startedAt: string;
    readonly durationSec: number;
    readonly plan: string;
    readonly node: string;
    readonly cpus: string;
    readonly memoryGB: number;
    /** 1-minute load average when the run started and ended (other users share the cores). */
    readonly loadAverage: { readonly start: number; readonly end: number };
    readonly generator: string;
    /** Which smtp-server the sink ran on (absent in runs from before the choice). */
    readonly sink?: string;
    readonly redis: string;
    /** Whether the raw store sealed what it kept (RAW_STORE_KEY passed through; absent in runs from before). */
    readonly rawStoreSealed?: boolean;
    readonly workerConcurrency: number;
    /** SMTP_PROCESSES of the gateway's smtp role, and Haraka's processes (absent in runs from before: one). */
    readonly smtpProcesses?: number;
    readonly e2eWorkers: number;
    readonly wireBytes: Readonly<Record<string, number>>;
    /** The private Postfix of `--peers`: its version and configuration, or why it did not run. */
    readonly postfix?: PostfixMeta;
  };
  readonly accept: readonly AcceptCell[];
  readonly runs: readonly EndToEndRun[];
  readonly rssProbe: RssProbe | undefined;
  /** The deep PDF checks' CPU per PDF (absent in runs from before the checks). */
  readonly pdfCost?: readonly PdfCost[];
  readonly goals: readonly Goal[];
}

export function summary(load: LoadResult): LoadSummary {
  const { intakeIds: _ids, ...rest } = load;
  return rest;
}
