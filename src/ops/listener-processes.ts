// What the ops server asks of the listener processes a primary runs (SMTP_PROCESSES > 1): each
// one's readiness and metrics, gathered over IPC within a bound. /readyz is ready only when every
// listener process is; /metrics adds their metrics to this process's own.
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { DependencyCheck } from './readiness.js';

export type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

export interface ListenerProcesses {
  /** Each listener process's readiness, by its number (1 to SMTP_PROCESSES). */
  readiness(): Promise<Readonly<Record<string, DependencyCheck>>>;
  /** The metrics of every listener process that answered, and of their supervisor (restarts). */
  metrics(): Promise<readonly MetricsJson[]>;
  /** The file versions each listener process loaded (sender directory, TLS pair), as of its last readiness answer. */
  loaded(): Readonly<Record<string, Readonly<Record<string, { readonly version: string; readonly loadedAt: string }>>>>;
}
