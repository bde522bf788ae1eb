// The bench's judgement of the worker goals from a run's figures: CPU per letter of one worker
// process, and letters per worker CPU-second with two processes against one (on 2 shared
// cores letters/s cannot show scaling; CPU per letter shows whether workers get in each other's way).
import { describe, expect, it } from 'vitest';
import { evaluateGoals, lettersPerWorkerCpuSecond } from '../../bench/goals.js';
import type { AcceptCell, BenchResult, EndToEndRun } from '../../bench/results.js';

const percentiles = { count: 0, p50: 0, p95: 0, p99: 0, max: 0 };
const load = {
  sent: 0,
  accepted: 0,
  replies: {},
  errors: 0,
  firstError: undefined,
  elapsedMs: 0,
  acceptedPerSec: 0,
  wireMBPerSec: 0,
  replyMs: { p50: 0, p99: 0, max: 0 },
};

function drain(workers: number, letters: number, workerCpuSeconds: readonly number[]): EndToEndRun {
  const usage = Object.fromEntries(workerCpuSeconds.map((cpuSeconds, i) => [`worker-${i + 1}`, { cpuSeconds, peakRssBytes: 0 }]));
  return {
    size: '10KB',
    kind: 'drain',
    workers,
    sessions: 8,
    offeredPerSec: undefined,
    load,
    e2e: {
      accepted: letters,
      letters,
      notSubmitted: {},
      queuedMissing: 0,
      latencyMs: percentiles,
      lettersPerSec: 1,
      serviceMs: percentiles,
      meanInService: 1,
    },
    usage: { ...usage, sandbox: { cpuSeconds: 50, peakRssBytes: 0 } },
    cores: { ours: 1, machine: 1 },
  };
}

function resultWith(runs: readonly EndToEndRun[]): Omit<BenchResult, 'goals'> {
  return {
    meta: {
      startedAt: '',
      durationSec: 0,
      plan: 'quick',
      node: '',
      cpus: '',
      memoryGB: 0,
      loadAverage: { start: 0, end: 0 },
      generator: '',
      redis: '',
      workerConcurrency: 4,
      e2eWorkers: 2,
      wireBytes: {},
    },
    accept: [],
    runs,
    rssProbe: undefined,
  };
}

const goal = (runs: readonly EndToEndRun[], name: string) => evaluateGoals(resultWith(runs)).find((g) => g.name === name);

describe('worker goals', () => {
  it('counts letters per CPU second of the worker processes only, not the API beside them', () => {
    expect(lettersPerWorkerCpuSecond(drain(2, 300, [1, 2]))).toBe(100);
  });

  it('meets CPU per letter at 1.2 ms and misses it at 1.4 ms (goal 1.3 ms at 10 KB)', () => {
    expect(goal([drain(1, 1000, [1.2])], 'Worker CPU per letter (1 process), 10KB')?.met).toBe(true);
    expect(goal([drain(1, 1000, [1.4])], 'Worker CPU per letter (1 process), 10KB')?.met).toBe(false);
  });

  it('two workers spending 8% more CPU per letter are within 10%, 15% more are not', () => {
    const name = 'Letters per worker CPU-second, 2 worker processes vs 1, 10KB';
    expect(goal([drain(1, 300, [1]), drain(2, 300, [0.54, 0.54])], name)?.met).toBe(true);
    expect(goal([drain(1, 300, [1]), drain(2, 300, [0.575, 0.575])], name)).toMatchObject({
      met: false,
      measured: expect.stringMatching(/^0\.87×/),
    });
  });

  it('reports a size without drain runs as not measured', () => {
    expect(goal([], 'Worker CPU per letter (1 process), 1MB')).toMatchObject({ met: undefined, measured: 'not measured' });
  });
});

describe("the worker against Haraka's CPU per message", () => {
  const name = "Worker CPU per letter (1 process) ÷ Haraka's CPU per message, 10KB";
  const haraka = (accepted: number, cpuSeconds: number): AcceptCell => {
    const run = { load: { ...load, accepted }, usage: { haraka: { cpuSeconds, peakRssBytes: 0 } }, cores: { ours: 1, machine: 1 } };
    const gateway = { load, usage: {}, cores: { ours: 1, machine: 1 } };
    return { size: '10KB', sessions: 8, mode: 'reuse', sink: gateway, gateway, haraka: run, ratio: 0 };
  };
  const judge = (cells: readonly AcceptCell[], runs: readonly EndToEndRun[]) =>
    evaluateGoals({ ...resultWith(runs), accept: cells }).find((g) => g.name === name);

  it('is met at twice Haraka and missed just above (goal ≤ 2× at 10 KB)', () => {
    // Haraka: 2.5 s over 1000 messages = 2.5 ms each; the worker 5.0 ms, then 5.1 ms per letter.
    expect(judge([haraka(1000, 2.5)], [drain(1, 1000, [5])])).toMatchObject({ met: true, measured: '2.00× (5.00 ms ÷ 2.50 ms)' });
    expect(judge([haraka(1000, 2.5)], [drain(1, 1000, [5.1])])?.met).toBe(false);
  });

  it("takes Haraka's CPU over all its reused-connection cells of the size", () => {
    // 1 s over 200 and 3 s over 800: 4 ms per message over both, not the mean of 5 and 3.75.
    expect(judge([haraka(200, 1), haraka(800, 3)], [drain(1, 1000, [6])])?.measured).toBe('1.50× (6.00 ms ÷ 4.00 ms)');
  });

  it('is not measured without Haraka (no --peers)', () => {
    expect(judge([], [drain(1, 1000, [5])])).toMatchObject({ met: undefined, measured: 'not measured' });
  });
});
