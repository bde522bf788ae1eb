// The shape of a bench run's results (written as JSON, rendered by report.ts).
import type { EndToEnd } from './intake-times.js';
import type { ConnectionMode, LoadResult } from './load.js';
import type { SizeName } from './messages.js';
import type { PdfCost } from './pdf-cost.js';
import type { ProcessUsage, WindowUsage } from './proc-stats.js';

/** Per process name (listener, worker-1, sandbox, redis, sink, generator): CPU and peak RSS. */
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

export interface AcceptCell {
  readonly size: SizeName;
  readonly sessions: number;
  readonly mode: ConnectionMode;
  readonly sink: { readonly load: LoadSummary; readonly usage: Usage; readonly cores: CoresBusy };
  readonly gateway: { readonly load: LoadSummary; readonly usage: Usage; readonly cores: CoresBusy };
  /** Haraka with SPF and DKIM verification (`--peers` only), driven right after the gateway. */
  readonly haraka?: { readonly load: LoadSummary; readonly usage: Usage; readonly cores: CoresBusy };
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

/** A fresh listener's RSS before and while `sessions` clients send 10 MB messages at once. */
export interface RssProbe {
  readonly sessions: number;
  readonly load: LoadSummary;
  readonly idleRssBytes: number;
  readonly peakRssBytes: number;
}

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
    readonly e2eWorkers: number;
    readonly wireBytes: Readonly<Record<string, number>>;
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
