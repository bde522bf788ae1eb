// The issue's goals, each judged from a run's results. A goal whose measurement the plan did not
// include is reported as not measured, never as met.
import type { SizeName } from './messages.js';
import { type AcceptCell, type BenchResult, type EndToEndRun, type Goal, PEER_LABEL, type PeerName, type RssProbe } from './results.js';

const MB = 1024 * 1024;

/** Minimum gateway/sink accept-rate share per size (peak over the reused-connection cells). */
export const ACCEPT_SHARE_GOAL: Readonly<Record<SizeName, number>> = { '10KB': 0.15, '1MB': 0.3, '10MB': 0.35 };
/** Worker CPU per letter, one worker process draining a preloaded queue. */
export const WORKER_CPU_GOAL_MS: Readonly<Record<SizeName, number>> = { '10KB': 1.3, '1MB': 12, '10MB': 120 };
/** End-to-end p99 bounds at a fixed offered load. */
export const P99_GOALS: readonly { readonly size: SizeName; readonly ratePerSec: number; readonly p99Ms: number }[] = [
  { size: '1MB', ratePerSec: 20, p99Ms: 1000 },
  { size: '10MB', ratePerSec: 2, p99Ms: 3000 },
];
export const LISTENER_RSS_GOAL_BYTES = 256 * MB;
/**
 * Minimum gateway ÷ peer accept rate (`--peers`), judged cell by cell on reused connections:
 * against Postfix at the sessions listed (10 KB: the concurrent cells, 8 and 32; larger sizes:
 * every reused cell), against Haraka in every reused cell.
 */
export const PEER_GOALS: Readonly<
  Record<PeerName, Readonly<Record<SizeName, { readonly min: number; readonly sessions?: readonly number[] }>>>
> = {
  haraka: { '10KB': { min: 1 }, '1MB': { min: 1 }, '10MB': { min: 1 } },
  postfix: { '10KB': { min: 1, sessions: [8, 32] }, '1MB': { min: 1.2 }, '10MB': { min: 1.2 } },
};
/**
 * Letters per worker CPU-second with 2 worker processes within this fraction of 1 process's.
 * (Letters/s with 2 workers vs 1 cannot show scaling on 2 cores that the API, Redis and the
 * generator share; CPU per letter can show contention between workers, which is what matters.)
 */
export const WORKER_EFFICIENCY_TOLERANCE = 0.1;
/**
 * The worker's CPU per letter (one process draining) at most this many times Haraka's CPU per
 * message accepted (`--peers`), at the sizes listed. Not the same work (the worker parses, checks
 * the PDF and calls the Sender API; Haraka verifies SPF and DKIM and stores nothing): Haraka's
 * cost per message is the yardstick of what a message costs a Node mail server on this machine.
 */
export const WORKER_PER_HARAKA_GOAL: Readonly<Partial<Record<SizeName, number>>> = { '10KB': 2 };

export function evaluateGoals(result: Omit<BenchResult, 'goals'>): Goal[] {
  const goals: Goal[] = [];
  for (const size of ['10KB', '1MB', '10MB'] as const) {
    const share = peakShare(result.accept.filter((c) => c.size === size && c.mode === 'reuse'));
    const target = ACCEPT_SHARE_GOAL[size];
    goals.push({
      name: `Accept rate of the gateway (all listener processes), ${size}, share of the sink's`,
      target: `≥ ${pct(target)}`,
      measured:
        share === undefined ? 'not measured' : `${pct(share.share)} (${share.gateway.toFixed(1)} of ${share.sink.toFixed(1)} msg/s)`,
      met: share === undefined ? undefined : share.share >= target,
    });
  }
  for (const peer of ['postfix', 'haraka'] as const) {
    for (const size of ['10KB', '1MB', '10MB'] as const) goals.push(peerGoal(result.accept, peer, size));
  }
  for (const g of P99_GOALS) {
    const run = result.runs.find((r) => r.kind === 'fixed' && r.size === g.size && r.offeredPerSec === g.ratePerSec);
    // A few seconds of offered load cannot show a backlog building up: only a full run judges.
    const judged = run !== undefined && result.meta.plan === 'full';
    goals.push({
      name: `End-to-end p99, ${g.size} at ${g.ratePerSec} msg/s offered`,
      target: `≤ ${g.p99Ms / 1000} s`,
      measured:
        run === undefined
          ? 'not measured'
          : `${(run.e2e.latencyMs.p99 / 1000).toFixed(2)} s (${run.e2e.letters}/${run.load.accepted} letters${judged ? '' : `, ${run.load.accepted} messages only: not judged`})`,
      met: judged ? run.e2e.letters === run.load.accepted && run.e2e.latencyMs.p99 <= g.p99Ms : undefined,
    });
  }
  goals.push(rssGoal(result.rssProbe, result.meta.smtpProcesses ?? 1));
  for (const size of ['10KB', '1MB', '10MB'] as const) {
    const perCpu = mapDefined(drain(result.runs, size, 1), lettersPerWorkerCpuSecond);
    const msPerLetter = perCpu === undefined ? undefined : 1000 / perCpu;
    goals.push({
      name: `Worker CPU per letter (1 process), ${size}`,
      target: `≤ ${WORKER_CPU_GOAL_MS[size]} ms`,
      measured: msPerLetter === undefined ? 'not measured' : `${msPerLetter.toFixed(msPerLetter >= 10 ? 0 : 2)} ms`,
      met: msPerLetter === undefined ? undefined : msPerLetter <= WORKER_CPU_GOAL_MS[size],
    });
  }
  goals.push(...goalsAddedLater(result));
  for (const size of ['10KB', '1MB', '10MB'] as const) {
    const one = drain(result.runs, size, 1);
    const two = drain(result.runs, size, 2);
    const perCpu1 = one === undefined ? undefined : lettersPerWorkerCpuSecond(one);
    const perCpu2 = two === undefined ? undefined : lettersPerWorkerCpuSecond(two);
    const factor = perCpu1 !== undefined && perCpu2 !== undefined && perCpu1 > 0 ? perCpu2 / perCpu1 : undefined;
    goals.push({
      name: `Letters per worker CPU-second, 2 worker processes vs 1, ${size}`,
      target: `within ${pct(WORKER_EFFICIENCY_TOLERANCE)}`,
      measured:
        factor === undefined || perCpu1 === undefined || perCpu2 === undefined
          ? 'not measured'
          : `${factor.toFixed(2)}× (${perCpu1.toFixed(0)} → ${perCpu2.toFixed(0)} letters/CPU-s)`,
      met: factor === undefined ? undefined : Math.abs(factor - 1) <= WORKER_EFFICIENCY_TOLERANCE,
    });
  }
  return goals;
}

/**
 * Judged per process, as the memory a listener process needs: the largest listener process's
 * peak; the primary's (with listener processes) beside it, not judged (it holds no message).
 */
export function rssGoal(probe: RssProbe | undefined, processes: number): Goal {
  const primary =
    probe?.primaryPeakRssBytes === undefined
      ? ''
      : `; primary ${Math.round((probe.primaryIdleRssBytes ?? 0) / MB)} → ${Math.round(probe.primaryPeakRssBytes / MB)} MB`;
  return {
    name: `Listener peak RSS per process, ${probe?.sessions ?? 32} clients sending 10 MB PDFs at once (fresh listener)`,
    target: `≤ ${LISTENER_RSS_GOAL_BYTES / MB} MB`,
    measured:
      probe === undefined
        ? 'not measured'
        : `${Math.round(probe.peakRssBytes / MB)} MB (${processes === 1 ? 'one listener process' : `largest of ${processes} listener processes`}; idle ${Math.round(probe.idleRssBytes / MB)} MB${primary}; ${probe.load.accepted}/${probe.load.sent} accepted)`,
    met: probe === undefined ? undefined : probe.peakRssBytes <= LISTENER_RSS_GOAL_BYTES,
  };
}

/** Gateway accepted/s ÷ the peer's in one cell, and whether a goal judges that cell. */
export function peerRatio(cell: AcceptCell, peer: PeerName): { readonly ratio: number; readonly goal: number | undefined } | undefined {
  const run = cell[peer];
  if (run === undefined || run.load.acceptedPerSec <= 0) return undefined;
  const goal = PEER_GOALS[peer][cell.size];
  const judged = cell.mode === 'reuse' && (goal.sessions === undefined || goal.sessions.includes(cell.sessions));
  return { ratio: cell.gateway.load.acceptedPerSec / run.load.acceptedPerSec, goal: judged ? goal.min : undefined };
}

/** Met when every judged cell of the size meets it; the lowest ratio is the figure. */
function peerGoal(cells: readonly AcceptCell[], peer: PeerName, size: SizeName): Goal {
  const goal = PEER_GOALS[peer][size];
  const sessions =
    goal.sessions === undefined ? 'every reused-connection cell' : `reused connections, ${goal.sessions.join(' and ')} sessions`;
  const judged = cells.flatMap((cell) => {
    const r = cell.size === size ? peerRatio(cell, peer) : undefined;
    return r?.goal === undefined ? [] : [{ sessions: cell.sessions, ratio: r.ratio }];
  });
  const lowest = judged.length === 0 ? undefined : Math.min(...judged.map((j) => j.ratio));
  return {
    name: `Gateway ÷ ${PEER_LABEL[peer]}, accept rate of all listener processes, ${size} (${sessions})`,
    target: `≥ ${goal.min.toFixed(1)}×`,
    measured:
      lowest === undefined
        ? 'not measured'
        : `${factor(lowest)} (${judged.length === 1 ? '' : 'lowest of '}${judged.map((j) => `${j.sessions} session${j.sessions === 1 ? '' : 's'} ${factor(j.ratio)}`).join(', ')})`,
    met: lowest === undefined ? undefined : lowest >= goal.min,
  };
}

/**
 * The goals added after runs that recorded the figures they are judged by (compare-runs.ts adds
 * them to such runs): the worker against Haraka. Runs before the bench counted Haraka's whole
 * process tree (commit c96c637) measured its master process alone, which makes the ratio look worse.
 */
export function goalsAddedLater(result: Omit<BenchResult, 'goals'>): Goal[] {
  return (Object.entries(WORKER_PER_HARAKA_GOAL) as [SizeName, number][]).map(([size, most]) => workerPerHarakaGoal(result, size, most));
}

/** CPU seconds of a peer's processes ÷ messages it accepted, over the size's reused-connection cells (ms). */
export function peerCpuMsPerMessage(cells: readonly AcceptCell[], peer: PeerName, size: SizeName): number | undefined {
  const runs = cells.flatMap((c) => (c.size === size && c.mode === 'reuse' && c[peer] !== undefined ? [c[peer]] : []));
  const cpu = runs.reduce((sum, run) => sum + (run.usage[peer]?.cpuSeconds ?? 0), 0);
  const accepted = runs.reduce((n, run) => n + run.load.accepted, 0);
  return accepted > 0 && cpu > 0 ? (1000 * cpu) / accepted : undefined;
}

function workerPerHarakaGoal(result: Omit<BenchResult, 'goals'>, size: SizeName, most: number): Goal {
  const perCpu = mapDefined(drain(result.runs, size, 1), lettersPerWorkerCpuSecond);
  const worker = perCpu === undefined ? undefined : 1000 / perCpu;
  const haraka = peerCpuMsPerMessage(result.accept, 'haraka', size);
  const ratio = worker === undefined || haraka === undefined ? undefined : worker / haraka;
  return {
    name: `Worker CPU per letter (1 process) ÷ Haraka's CPU per message, ${size}`,
    target: `≤ ${most.toFixed(1)}×`,
    measured:
      ratio === undefined || worker === undefined || haraka === undefined
        ? 'not measured'
        : `${factor(ratio)} (${worker.toFixed(2)} ms ÷ ${haraka.toFixed(2)} ms)`,
    met: ratio === undefined ? undefined : ratio <= most,
  };
}

export const factor = (x: number): string => `${x.toFixed(2)}×`;

function peakShare(cells: readonly AcceptCell[]): { share: number; gateway: number; sink: number } | undefined {
  if (cells.length === 0) return undefined;
  const gateway = Math.max(...cells.map((c) => c.gateway.load.acceptedPerSec));
  const sink = Math.max(...cells.map((c) => c.sink.load.acceptedPerSec));
  return { share: sink > 0 ? gateway / sink : 0, gateway, sink };
}

/** Letters of a run ÷ CPU seconds of its worker processes (worker-1, worker-2, ...). */
export function lettersPerWorkerCpuSecond(run: EndToEndRun): number | undefined {
  const cpu = Object.entries(run.usage)
    .filter(([name]) => name.startsWith('worker'))
    .reduce((sum, [, u]) => sum + u.cpuSeconds, 0);
  return cpu > 0 ? run.e2e.letters / cpu : undefined;
}

function mapDefined<T, U>(value: T | undefined, f: (v: T) => U | undefined): U | undefined {
  return value === undefined ? undefined : f(value);
}

function drain(runs: readonly EndToEndRun[], size: SizeName, workers: number): EndToEndRun | undefined {
  return runs.find((r) => r.kind === 'drain' && r.size === size && r.workers === workers);
}

function pct(x: number): string {
  return `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
}
