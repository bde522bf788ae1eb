// The bench counts Postfix as the master and every daemon it forks: CPU spent by a child that
// has already exited and been reaped still counts, through the parent's cutime and cstime.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readProc, readProcTree } from '../../bench/proc-stats.js';

/** A child that spends `cpuSeconds` of its own CPU time (not wall time), then exits. */
function burnInChild(cpuSeconds: number): void {
  const script = `const end = ${cpuSeconds * 1e6}; let x = 0; while (process.cpuUsage().user < end) x += Math.sqrt(x + 1);`;
  execFileSync(process.execPath, ['-e', script]);
}

describe('a process tree read from /proc', () => {
  it('counts the CPU of a child that has exited and been reaped', () => {
    const treeBefore = readProcTree(process.pid)?.cpuSeconds ?? Number.NaN;
    const ownBefore = readProc(process.pid)?.cpuSeconds ?? Number.NaN;
    burnInChild(0.3);
    const treeGrew = (readProcTree(process.pid)?.cpuSeconds ?? Number.NaN) - treeBefore;
    const ownGrew = (readProc(process.pid)?.cpuSeconds ?? Number.NaN) - ownBefore;
    // the child's 0.3 s count in the tree and not in the process alone (clock ticks: 10 ms)
    expect(treeGrew - ownGrew).toBeGreaterThanOrEqual(0.28);
  });

  it('reads a process that is gone as undefined', () => {
    expect(readProcTree(2 ** 22 + 1)).toBeUndefined();
  });
});
