// What /metrics sums for one listener slot: its live process's latest answer (used while it does
// not answer) and the counters and histograms of its processes that exited, so a summed counter
// never goes down (Prometheus would read a reset). Each process is a generation of its slot: an
// answer that arrives once its process exited is dropped (its exit already carried the answer
// before it). The carried list is never emptied in place: a scrape reads a whole snapshot while
// another sums it, and the sums run one at a time.
import { AggregatorRegistry } from 'prom-client';
import type { MetricsJson } from '../ops/listener-processes.js';

export class SlotMetrics {
  private generation = 0;
  private live: number | undefined;
  private last: MetricsJson | undefined;
  private carried: readonly MetricsJson[] = [];
  private compacting: Promise<void> = Promise.resolve();

  /** A process of this slot starts: its answers carry the generation returned. */
  started(): number {
    this.generation++;
    this.live = this.generation;
    this.last = undefined;
    return this.generation;
  }

  /** A process's answer: kept as the slot's latest unless that process already exited. */
  answered(generation: number, metrics: MetricsJson): void {
    if (generation === this.live) this.last = metrics;
  }

  /** A process exited: its latest answer's counters and histograms carry on in the slot. */
  exited(generation: number): void {
    if (generation !== this.live) return;
    this.live = undefined;
    if (this.last !== undefined) this.carried = [...this.carried, countersOf(this.last)];
    this.last = undefined;
  }

  /** What the slot adds to /metrics now. */
  snapshot(): readonly MetricsJson[] {
    return this.last === undefined ? this.carried : [...this.carried, this.last];
  }

  /** Sums the carried metrics into one set, so that restarts do not pile them up; one sum at a time. */
  compact(): Promise<void> {
    this.compacting = this.compacting.then(
      () => this.compactOnce(),
      () => this.compactOnce(),
    );
    return this.compacting;
  }

  private async compactOnce(): Promise<void> {
    const taken = this.carried;
    if (taken.length < 2) return;
    const sum = (await AggregatorRegistry.aggregate([...taken]).getMetricsAsJSON()) as MetricsJson;
    // exits only append while the sum runs: the taken ones are still the list's head
    this.carried = [sum, ...this.carried.slice(taken.length)];
  }
}

/** What of a process's metrics carries past its exit: counters and histograms (a gauge is of the moment). */
function countersOf(metrics: MetricsJson): MetricsJson {
  return metrics.filter((metric) => String(metric.type) === 'counter' || String(metric.type) === 'histogram');
}
