// Statistics for the in-process micro benches (listener-cpu, worker-cpu, pdf-checker-cpu, split-fast-path).

/** The value at quantile q of the samples (the upper one of a middle pair for 0.5). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** The arithmetic mean: what a run pays in all, rare expensive samples (collections) included. */
export function mean(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((sum, v) => sum + v, 0) / values.length;
}
