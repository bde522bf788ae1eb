// The bench judges the gateway's smtp role as a whole for CPU and per process for memory: a
// primary and its listener processes (SMTP_PROCESSES > 1) count their CPU together, the largest
// listener process's RSS is the listener's, and the primary's is shown beside it. These are the
// pure parts: the tree arithmetic, the report's columns and the RSS goal, and which profiles of
// a profile run are shown.
import { describe, expect, it } from 'vitest';
import { rssGoal } from '../../bench/goals.js';
import { type ProcNode, supervisedTree, treeCpuSeconds, treeTotal } from '../../bench/proc-stats.js';
import { listenerProfiles, type ProfileSummary, profilePid } from '../../bench/profile.js';
import { renderReport } from '../../bench/report.js';
import { LISTENER_HEADINGS, listenerColumns, listenerShape } from '../../bench/report-listener.js';
import type { BenchResult, RssProbe, ServerRun } from '../../bench/results.js';

const MB = 1024 * 1024;

function proc(pid: number, own: number, reaped: number, memoryMB: number, children: readonly ProcNode[] = []): ProcNode {
  return { pid, ownCpuSeconds: own, reapedCpuSeconds: reaped, memoryBytes: memoryMB * MB, children };
}

// a primary (0.5 s; 1.25 s of a listener process that died and was reaped) and two live listener processes
const primaryWithTwo = proc(100, 0.5, 1.25, 90, [proc(101, 2, 0, 140), proc(102, 3, 0, 170)]);

describe('a process tree as one, and a supervised tree per process', () => {
  it('sums the CPU of every process, the live ones and the reaped ones', () => {
    expect(treeCpuSeconds(primaryWithTwo)).toBe(6.75);
    expect(treeCpuSeconds(proc(1, 1, 0, 1, [proc(2, 1, 0.5, 1, [proc(3, 2, 0, 1)])]))).toBe(4.5);
  });

  it('sums the memory of the live processes for a tree counted as one (Postfix)', () => {
    expect(treeTotal(primaryWithTwo)).toEqual({ cpuSeconds: 6.75, rssBytes: 400 * MB });
  });

  it("takes the largest listener process's memory and the primary's apart", () => {
    expect(supervisedTree(primaryWithTwo)).toEqual({ cpuSeconds: 6.75, rssBytes: 170 * MB, processes: 2, rootRssBytes: 90 * MB });
  });

  it('takes a process without children as the one listener process, with no primary beside it', () => {
    expect(supervisedTree(proc(7, 4, 0, 120))).toEqual({ cpuSeconds: 4, rssBytes: 120 * MB, processes: 1 });
  });
});

describe("the report's listener columns", () => {
  it('divides the CPU of all processes by the messages accepted, and shows both RSS figures', () => {
    const usage = { cpuSeconds: 3, peakRssBytes: 170 * MB, processes: 2, peakRootRssBytes: 90 * MB };
    expect(LISTENER_HEADINGS).toEqual(['Listener CPU ms/msg, all processes', 'Listener peak RSS per process', 'Primary peak RSS']);
    expect(listenerColumns(usage, 1000)).toEqual(['3.00', '170 MB', '90 MB']);
  });

  it('shows no primary for one listener process, and nothing for a run without listener figures', () => {
    expect(listenerColumns({ cpuSeconds: 0.5, peakRssBytes: 130 * MB, processes: 1 }, 20)).toEqual(['25.0', '130 MB', '—']);
    expect(listenerColumns(undefined, 20)).toEqual(['—', '—', '—']);
  });

  it('names the listener by its processes, a run from before SMTP_PROCESSES as one process', () => {
    expect(listenerShape(2)).toBe('SMTP_PROCESSES 2: a primary and 2 listener processes on one port');
    expect(listenerShape(1)).toBe('SMTP_PROCESSES 1: one listener process');
    expect(listenerShape(undefined)).toBe('1 listener process');
  });
});

const load = {
  sent: 1000,
  accepted: 1000,
  replies: { '250': 1000 },
  errors: 0,
  firstError: undefined,
  elapsedMs: 1000,
  acceptedPerSec: 1000,
  wireMBPerSec: 1,
  replyMs: { p50: 0, p99: 0, max: 0 },
};

function reportWithListener(smtpProcesses: number, listener: ServerRun['usage']): string {
  const run = (usage: ServerRun['usage']): ServerRun => ({ load, usage, cores: { ours: 1, machine: 1 } });
  const base = {
    meta: {
      startedAt: '2026-11-28T00:00:00.000Z',
      durationSec: 60,
      plan: 'quick',
      node: 'v24',
      cpus: '2 × test',
      memoryGB: 4,
      loadAverage: { start: 0, end: 0 },
      generator: 'test',
      redis: 'test',
      workerConcurrency: 4,
      smtpProcesses,
      e2eWorkers: 2,
      wireBytes: { '10KB': 12_000 },
    },
    accept: [{ size: '10KB' as const, sessions: 8, mode: 'reuse' as const, ratio: 0.1, sink: run({}), gateway: run(listener) }],
    runs: [],
    rssProbe: undefined,
  };
  const result: BenchResult = { ...base, goals: [] };
  return renderReport(result);
}

/** The report's markdown tables, each as rows of cells (heading and separator included). */
function tables(markdown: string): string[][][] {
  const out: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) {
      current = undefined;
      continue;
    }
    if (current === undefined) {
      current = [];
      out.push(current);
    }
    current.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
  }
  return out;
}

describe("the report's tables with a primary and two listener processes", () => {
  const report = reportWithListener(2, { listener: { cpuSeconds: 3, peakRssBytes: 170 * MB, processes: 2, peakRootRssBytes: 90 * MB } });

  it('gives every row as many cells as its heading', () => {
    for (const table of tables(report)) {
      const width = table[0]?.length;
      expect(table.map((row) => row.length)).toEqual(table.map(() => width));
    }
  });

  it("puts the whole tree's CPU per message and both RSS figures under their headings", () => {
    const accept = tables(report).find((t) => t[0]?.includes('Gateway refusals'));
    const resources = tables(report).find((t) => t[0]?.includes('Worker peak RSS'));
    for (const table of [accept, resources]) {
      const [heading, , row] = table ?? [];
      const at = (name: string): string | undefined => row?.[heading?.indexOf(name) ?? -1];
      expect([at(LISTENER_HEADINGS[0]), at(LISTENER_HEADINGS[1]), at(LISTENER_HEADINGS[2])]).toEqual(['3.00', '170 MB', '90 MB']);
    }
    expect(report).toContain('SMTP_PROCESSES 2: a primary and 2 listener processes on one port');
  });
});

describe('the listener RSS goal, judged per process', () => {
  const probeLoad = {
    sent: 64,
    accepted: 64,
    replies: { '250': 64 },
    errors: 0,
    firstError: undefined,
    elapsedMs: 1,
    acceptedPerSec: 1,
    wireMBPerSec: 1,
    replyMs: { p50: 0, p99: 0, max: 0 },
  };
  const probe = (peakMB: number, primaryMB?: number): RssProbe => ({
    sessions: 32,
    load: probeLoad,
    idleRssBytes: 120 * MB,
    peakRssBytes: peakMB * MB,
    ...(primaryMB === undefined ? {} : { primaryIdleRssBytes: 80 * MB, primaryPeakRssBytes: primaryMB * MB }),
  });

  it("meets 256 MB on the largest listener process's peak, whatever the primary's", () => {
    expect(rssGoal(probe(250, 300), 2)).toMatchObject({
      met: true,
      measured: '250 MB (largest of 2 listener processes; idle 120 MB; primary 80 → 300 MB; 64/64 accepted)',
    });
    expect(rssGoal(probe(257, 90), 2).met).toBe(false);
  });

  it('says one listener process, and reports a run without the probe as not measured', () => {
    expect(rssGoal(probe(200), 1).measured).toBe('200 MB (one listener process; idle 120 MB; 64/64 accepted)');
    expect(rssGoal(undefined, 2)).toMatchObject({ met: undefined, measured: 'not measured' });
  });
});

describe('the listener profiles a profile run shows', () => {
  const summary = (busyMs: number): ProfileSummary => ({ totalMs: 10_000, busyMs, functions: [], packages: [] });

  it('reads the pid from the file name V8 gives a profile', () => {
    expect(profilePid('CPU.20261128.003712.41234.0.001.cpuprofile')).toBe(41234);
    expect(profilePid('summary.md')).toBeUndefined();
  });

  it('shows the primary and the busiest of its listener processes', () => {
    const profiles = [
      { file: 'CPU.20261128.003712.500.0.001.cpuprofile', summary: summary(300) },
      { file: 'CPU.20261128.003713.501.0.001.cpuprofile', summary: summary(2500) },
      { file: 'CPU.20261128.003713.502.0.001.cpuprofile', summary: summary(2700) },
    ];
    expect(listenerProfiles(profiles, new Set([500])).map((p) => [p.label, profilePid(p.file)])).toEqual([
      ['listener primary', 500],
      ['listener process (the busiest)', 502],
    ]);
  });
});
