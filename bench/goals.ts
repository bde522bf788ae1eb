// The issue's goals, each judged from a run's results. A goal whose measurement the plan did not
// include is reported as not measured, never as met.
import type { SizeName } from './messages.js';
import type { AcceptCell, BenchResult, EndToEndRun, Goal } from './results.js';

const MB = 1024 * 1024;

/** Minimum gateway/sink accept-rate share per size (peak over the reused-connection cells). */
export const ACCEPT_SHARE_GOAL: Readonly<Record<SizeName, number>> = { '10KB': 0.1, '1MB': 0.3, '10MB': 0.35 };
/** End-to-end p99 bounds at a fixed offered load. */
export const P99_GOALS: readonly { readonly size: SizeName; readonly ratePerSec: number; readonly p99Ms: number }[] = [
  { size: '1MB', ratePerSec: 20, p99Ms: 1000 },
  { size: '10MB', ratePerSec: 2, p99Ms: 3000 },
];
export const LISTENER_RSS_GOAL_BYTES = 256 * MB;
export const SCALING_GOAL = 1.7;

export function evaluateGoals(result: Omit<BenchResult, 'goals'>): Goal[] {
  const goals: Goal[] = [];
  for (const size of ['10KB', '1MB', '10MB'] as const) {
    const share = peakShare(result.accept.filter((c) => c.size === size && c.mode === 'reuse'));
    const target = ACCEPT_SHARE_GOAL[size];
    goals.push({
      name: `Accept rate per listener, ${size}, share of the sink's`,
      target: `≥ ${pct(target)}`,
      measured: share === undefined ? 'not measured' : `${pct(share.share)} (${share.gateway.toFixed(1)} of ${share.sink.toFixed(1)} msg/s)`,
      met: share === undefined ? undefined : share.share >= target,
    });
  }
  for (const g of P99_GOALS) {
    const run = result.runs.find((r) => r.kind === 'fixed' && r.size === g.size && r.offeredPerSec === g.ratePerSec);
    // A few seconds of offered load cannot show a backlog building up: only a full run judges.
    const judged = run !== undefined && result.meta.plan === 'full';
    goals.push({
      name: `End-to-end p99, ${g.size} at ${g.ratePerSec} msg/s offered`,
      target: `≤ ${g.p99Ms / 1000} s`,
      measured: run === undefined
        ? 'not measured'
        : `${(run.e2e.latencyMs.p99 / 1000).toFixed(2)} s (${run.e2e.letters}/${run.load.accepted} letters${judged ? '' : `, ${run.load.accepted} messages only: not judged`})`,
      met: judged ? run.e2e.letters === run.load.accepted && run.e2e.latencyMs.p99 <= g.p99Ms : undefined,
    });
  }
  const probe = result.rssProbe;
  const rss = probe?.peakRssBytes;
  goals.push({
    name: `Listener peak RSS, ${probe?.sessions ?? 32} clients sending 10 MB PDFs at once (fresh listener)`,
    target: `≤ ${LISTENER_RSS_GOAL_BYTES / MB} MB`,
    measured: probe === undefined || rss === undefined
      ? 'not measured'
      : `${Math.round(rss / MB)} MB (idle ${Math.round(probe.idleRssBytes / MB)} MB; ${probe.load.accepted}/${probe.load.sent} accepted)`,
    met: rss === undefined ? undefined : rss <= LISTENER_RSS_GOAL_BYTES,
  });
  for (const size of ['10KB', '1MB', '10MB'] as const) {
    const one = drain(result.runs, size, 1);
    const two = drain(result.runs, size, 2);
    const factor = one !== undefined && two !== undefined && one.e2e.lettersPerSec > 0 ? two.e2e.lettersPerSec / one.e2e.lettersPerSec : undefined;
    goals.push({
      name: `Letters/s with 2 worker processes vs 1, ${size}`,
      target: `≥ ${SCALING_GOAL}×`,
      measured: factor === undefined || one === undefined || two === undefined
        ? 'not measured'
        : `${factor.toFixed(2)}× (${one.e2e.lettersPerSec.toFixed(1)} → ${two.e2e.lettersPerSec.toFixed(1)}/s)`,
      met: factor === undefined ? undefined : factor >= SCALING_GOAL,
    });
  }
  return goals;
}

function peakShare(cells: readonly AcceptCell[]): { share: number; gateway: number; sink: number } | undefined {
  if (cells.length === 0) return undefined;
  const gateway = Math.max(...cells.map((c) => c.gateway.load.acceptedPerSec));
  const sink = Math.max(...cells.map((c) => c.sink.load.acceptedPerSec));
  return { share: sink > 0 ? gateway / sink : 0, gateway, sink };
}

function drain(runs: readonly EndToEndRun[], size: SizeName, workers: number): EndToEndRun | undefined {
  return runs.find((r) => r.kind === 'drain' && r.size === size && r.workers === workers);
}

function pct(x: number): string {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
}
