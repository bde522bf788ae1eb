// The bench's peers in its results: the goals judged against Postfix and Haraka cell by cell,
// the accept table's peer columns (each ratio cell starting with its number), the Postfix
// configuration printed with the results, and the goals of several runs side by side when an
// older run has no peer goals.
import { describe, expect, it } from 'vitest';
import { evaluateGoals } from '../../bench/goals.js';
import { goalsSideBySide } from '../../bench/goals-side-by-side.js';
import type { ConnectionMode } from '../../bench/load.js';
import type { SizeName } from '../../bench/messages.js';
import { peerColumns, renderReport } from '../../bench/report.js';
import type { AcceptCell, BenchResult, Goal, PostfixMeta, ServerRun } from '../../bench/results.js';

function server(acceptedPerSec: number, replies: Readonly<Record<string, number>> = { '250': 100 }): ServerRun {
  return {
    load: {
      sent: 100,
      accepted: replies['250'] ?? 0,
      replies,
      errors: 0,
      firstError: undefined,
      elapsedMs: 1000,
      acceptedPerSec,
      wireMBPerSec: 0,
      replyMs: { p50: 0, p99: 0, max: 0 },
    },
    usage: {},
    cores: { ours: 1, machine: 1 },
  };
}

interface CellRates {
  readonly size?: SizeName;
  readonly sessions?: number;
  readonly mode?: ConnectionMode;
  readonly sink?: number;
  readonly gateway: number;
  readonly haraka?: number;
  readonly postfix?: number;
}

function cell(r: CellRates): AcceptCell {
  const sink = r.sink ?? 1000;
  return {
    size: r.size ?? '10KB',
    sessions: r.sessions ?? 8,
    mode: r.mode ?? 'reuse',
    ratio: r.gateway / sink,
    sink: server(sink),
    gateway: server(r.gateway),
    ...(r.haraka === undefined ? {} : { haraka: server(r.haraka) }),
    ...(r.postfix === undefined ? {} : { postfix: server(r.postfix) }),
  };
}

function result(accept: readonly AcceptCell[], postfix?: PostfixMeta): BenchResult {
  const base = {
    meta: {
      startedAt: '2026-11-27T00:00:00.000Z',
      durationSec: 60,
      plan: 'quick',
      node: 'v24',
      cpus: '2 × test',
      memoryGB: 4,
      loadAverage: { start: 0, end: 0 },
      generator: 'test',
      redis: 'test',
      workerConcurrency: 4,
      e2eWorkers: 2,
      wireBytes: { '10KB': 12_000 },
      ...(postfix === undefined ? {} : { postfix }),
    },
    accept,
    runs: [],
    rssProbe: undefined,
  };
  return { ...base, goals: evaluateGoals(base) };
}

const goal = (r: BenchResult, start: string): Goal | undefined => r.goals.find((g) => g.name.startsWith(start));

describe('goals against the peers', () => {
  it('judges gateway ÷ Postfix at 10 KB on 8 and 32 reused sessions only, by the lowest of them', () => {
    const r = result([
      cell({ sessions: 1, gateway: 100, postfix: 400 }),
      cell({ sessions: 8, gateway: 600, postfix: 500 }),
      cell({ sessions: 32, gateway: 550, postfix: 500 }),
      cell({ sessions: 32, mode: 'per-connection', gateway: 50, postfix: 500 }),
    ]);
    expect(goal(r, 'Gateway ÷ Postfix, accept rate of all listener processes, 10KB')).toMatchObject({
      target: '≥ 1.0×',
      measured: '1.10× (lowest of 8 sessions 1.20×, 32 sessions 1.10×)',
      met: true,
    });
  });

  it('misses gateway ÷ Postfix at 10 KB when one judged cell is below 1.0', () => {
    const r = result([cell({ sessions: 8, gateway: 600, postfix: 500 }), cell({ sessions: 32, gateway: 490, postfix: 500 })]);
    expect(goal(r, 'Gateway ÷ Postfix, accept rate of all listener processes, 10KB')).toMatchObject({
      measured: expect.stringMatching(/^0\.98×/),
      met: false,
    });
  });

  it('asks 1.2× of Postfix at 1 MB and 10 MB in every reused cell, 1 session included', () => {
    const r = result([
      cell({ size: '1MB', sessions: 1, gateway: 110, postfix: 100 }),
      cell({ size: '1MB', sessions: 8, gateway: 130, postfix: 100 }),
      cell({ size: '10MB', sessions: 8, gateway: 12.5, postfix: 10 }),
    ]);
    expect(goal(r, 'Gateway ÷ Postfix, accept rate of all listener processes, 1MB')).toMatchObject({
      target: '≥ 1.2×',
      measured: expect.stringMatching(/^1\.10×/),
      met: false,
    });
    expect(goal(r, 'Gateway ÷ Postfix, accept rate of all listener processes, 10MB')).toMatchObject({
      measured: '1.25× (8 sessions 1.25×)',
      met: true,
    });
  });

  it('asks gateway ÷ Haraka ≥ 1.0 in every reused cell and ignores one message per connection', () => {
    const r = result([
      cell({ sessions: 1, gateway: 99, haraka: 100 }),
      cell({ sessions: 8, gateway: 300, haraka: 100 }),
      cell({ sessions: 8, mode: 'per-connection', gateway: 10, haraka: 100 }),
    ]);
    expect(goal(r, 'Gateway ÷ Haraka, accept rate of all listener processes, 10KB')).toMatchObject({
      measured: expect.stringMatching(/^0\.99×/),
      met: false,
    });
  });

  it('reports the peer goals as not measured in a run without peers, never as met', () => {
    const r = result([cell({ gateway: 600 })]);
    const peerGoals = r.goals.filter((g) => g.name.startsWith('Gateway ÷'));
    expect(peerGoals).toHaveLength(6);
    expect(peerGoals.map((g) => [g.measured, g.met])).toEqual(Array(6).fill(['not measured', undefined]));
  });
});

describe('the accept table with peers', () => {
  const postfixRan: PostfixMeta = {
    version: '3.7.11',
    mainCf: 'relay_transport = discard\n',
    masterCf: '127.0.0.1:40123 inet n - n - - smtpd\n',
  };

  it("puts Postfix's three columns after Haraka's", () => {
    const report = renderReport(result([cell({ gateway: 600, haraka: 500, postfix: 400 })], postfixRan));
    expect(report).toContain(
      '| Goal | Haraka msg/s | Haraka ÷ sink | Gateway ÷ Haraka | Postfix msg/s | Postfix ÷ sink | Gateway ÷ Postfix | Gateway refusals |',
    );
    expect(report).toContain('| ≥ 15% ✅ | 500 | 50% | 1.20× ✅ | 400 | 40% | 1.50× ✅ |');
  });

  it('starts every ratio cell with its number, marked only where a goal judges the cell', () => {
    const judged = peerColumns(cell({ sessions: 8, gateway: 450, postfix: 500 }), 'postfix');
    const unjudged = peerColumns(cell({ sessions: 1, gateway: 450, postfix: 500 }), 'postfix');
    expect(judged).toEqual(['500', '50%', '0.90× ❌']);
    expect(unjudged).toEqual(['500', '50%', '0.90×']);
  });

  it('shows dashes and one line saying why when Postfix could not run', () => {
    const report = renderReport(result([cell({ gateway: 600, haraka: 500 })], { skipped: 'the bench is not running as root' }));
    expect(report).toContain('| 1.20× ✅ | — | — | — |');
    expect(report).toContain('Postfix: not run (the bench is not running as root).');
    expect(report).not.toContain('## Postfix configuration');
  });

  it('prints the main.cf and master.cf Postfix ran with', () => {
    const report = renderReport(result([cell({ gateway: 600, postfix: 400 })], postfixRan));
    expect(report).toContain('## Postfix configuration\n\nmain.cf:\n\n```\nrelay_transport = discard\n```');
    expect(report).toContain('master.cf:\n\n```\n127.0.0.1:40123 inet n - n - - smtpd\n```');
  });

  it('names a peer that refused messages beside the gateway refusals', () => {
    const refusing: AcceptCell = { ...cell({ gateway: 600 }), postfix: server(10, { '250': 10, '452': 90 }) };
    expect(renderReport(result([refusing], postfixRan))).toContain(' Postfix: 90× 452 |');
  });

  it('has no peer columns or notes in a run without --peers', () => {
    const report = renderReport(result([cell({ gateway: 600 })]));
    const acceptTable = report.slice(report.indexOf('## Accept rate'), report.indexOf('## CPU time'));
    expect(acceptTable).toContain('| Goal | Gateway refusals |');
    expect(acceptTable).not.toMatch(/Haraka|Postfix/);
  });
});

describe('goals of several runs side by side', () => {
  const older: Goal[] = [{ name: 'Accept rate, 10KB', target: '≥ 15%', measured: '6%', met: false }];
  const newer: Goal[] = [...older, { name: 'Gateway ÷ Postfix, 10KB', target: '≥ 1.0×', measured: '1.10× (8 sessions 1.10×)', met: true }];

  it('shows a goal an older run did not have as – there, counted only where judged', () => {
    expect(
      goalsSideBySide([
        { label: 'run-a', goals: older },
        { label: 'run-b', goals: newer },
      ]),
    ).toEqual([
      '| Goal | Target | run-a | run-b | Met |',
      '|---|---|---|---|---|',
      '| Accept rate, 10KB | ≥ 15% | 6% ❌ | 6% ❌ | 0 of 2 |',
      '| Gateway ÷ Postfix, 10KB | ≥ 1.0× | – | 1.10× (8 sessions 1.10×) ✅ | 1 of 1 |',
    ]);
  });
});
