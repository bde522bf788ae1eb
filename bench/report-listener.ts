// The gateway's smtp role in the report: its shape (SMTP_PROCESSES) and its three columns, CPU of
// the primary and all its listener processes per message, RSS per process and the primary's.
import type { ProcessUsage } from './proc-stats.js';
import { mb, ms, perMessage } from './report-format.js';

/** The gateway's listener as the report names it (runs from before SMTP_PROCESSES: one process). */
export function listenerShape(processes: number | undefined): string {
  if (processes === undefined) return '1 listener process';
  return processes === 1
    ? 'SMTP_PROCESSES 1: one listener process'
    : `SMTP_PROCESSES ${processes}: a primary and ${processes} listener processes on one port`;
}

/** Haraka as the report names it: one process, or its cluster of as many as the gateway's listener. */
export function harakaShape(processes: number | undefined): string {
  return processes === undefined || processes === 1
    ? 'one process (no cluster)'
    : `${processes} processes (\`nodes=${processes}\`, its cluster)`;
}

export const LISTENER_HEADINGS = ['Listener CPU ms/msg, all processes', 'Listener peak RSS per process', 'Primary peak RSS'] as const;

export const LISTENER_NOTE =
  "Listener CPU: the smtp role's primary and all its listener processes together (exited ones included), per accepted message; peak RSS per process: the largest listener process's, the primary's beside it (— with one listener process, which is then the role's only process).";

/** CPU per message of the whole listener tree, the largest listener process's RSS, the primary's. */
export function listenerColumns(listener: ProcessUsage | undefined, accepted: number): [string, string, string] {
  return [ms(perMessage(listener?.cpuSeconds, accepted)), mb(listener?.peakRssBytes), mb(listener?.peakRootRssBytes)];
}
