// The bench counts Postfix as the master and every daemon it forks: CPU spent by a child that
// has already exited and been reaped still counts, through the parent's cutime and cstime. A
// supervisor (the gateway's primary, Haraka's master) is counted with its worker processes: CPU
// of all, memory per process.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { readProc, readProcTree, readSupervisedTree } from '../../bench/proc-stats.js';

const burn = (cpuSeconds: number): string =>
  `const end = ${cpuSeconds * 1e6}; let x = 0; while (process.cpuUsage().user < end) x += Math.sqrt(x + 1);`;

/** A child that spends `cpuSeconds` of its own CPU time (not wall time), then exits. */
function burnInChild(cpuSeconds: number): void {
  execFileSync(process.execPath, ['-e', burn(cpuSeconds)]);
}

/**
 * A supervisor whose two children each spend `cpuSeconds` and stay alive (until the supervisor's
 * pipe to them closes); it prints `ready` once both have. Ended by killing the supervisor.
 */
async function supervisorWithTwoBusyChildren(cpuSeconds: number): Promise<{ pid: number; stop: () => void }> {
  const child = `${burn(cpuSeconds)} console.log('burnt'); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
  const supervisor = `
    const { spawn } = require('node:child_process');
    let burnt = 0;
    for (let i = 0; i < 2; i++) {
      const c = spawn(process.execPath, ['-e', ${JSON.stringify(child)}], { stdio: ['pipe', 'pipe', 'inherit'] });
      c.stdout.on('data', () => { burnt += 1; if (burnt === 2) console.log('ready'); });
    }
    setInterval(() => {}, 1000);`;
  const proc = spawn(process.execPath, ['-e', supervisor], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  expect(line).toBe('ready');
  const pid = proc.pid;
  if (pid === undefined) throw new Error('supervisor did not start');
  return { pid, stop: () => proc.kill('SIGKILL') };
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
    expect(readSupervisedTree(2 ** 22 + 1)).toBeUndefined();
  });

  it("counts a supervisor's live worker processes' CPU, and gives each one's RSS and the supervisor's apart", async () => {
    const supervisor = await supervisorWithTwoBusyChildren(0.3);
    try {
      const tree = readSupervisedTree(supervisor.pid);
      const alone = readProc(supervisor.pid);
      expect(tree?.processes).toBe(2);
      // both children's 0.3 s count in the tree; the supervisor alone spent far less than one of them
      expect((tree?.cpuSeconds ?? 0) - (alone?.cpuSeconds ?? 0)).toBeGreaterThanOrEqual(0.58);
      expect(alone?.cpuSeconds).toBeLessThan(0.3);
      expect(tree?.rootRssBytes).toBeGreaterThan(10 * 1024 * 1024);
      expect(tree?.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    } finally {
      supervisor.stop();
    }
  });
});
