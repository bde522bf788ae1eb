// How the report writes its figures: milliseconds, megabytes, rates, shares, marks.
import type { CoresBusy } from './results.js';

export const MB = 1024 * 1024;

export function perMessage(cpuSeconds: number | undefined, count: number): number | undefined {
  return cpuSeconds === undefined || count === 0 ? undefined : (cpuSeconds * 1000) / count;
}

export const cores = (c: CoresBusy): string => `${c.ours.toFixed(2)} / ${c.machine.toFixed(2)}`;
export const mark = (met: boolean | undefined): string => (met === undefined ? '–' : met ? '✅' : '❌');
export const ratio = (a: number, b: number): string => (b > 0 ? pct(a / b) : '—');
export const pct = (x: number): string => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
export const rate = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
export const ms = (x: number | undefined): string => (x === undefined ? '—' : x >= 100 ? x.toFixed(0) : x.toFixed(x >= 10 ? 1 : 2));
export const mb = (bytes: number | undefined): string => (bytes === undefined || bytes === 0 ? '—' : `${Math.round(bytes / MB)} MB`);

export function formatBytes(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(1)} kB`;
}
