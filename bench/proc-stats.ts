// RSS and CPU time of the bench's processes, from /proc (Linux). A Sampler polls every tracked
// process; a window over a phase reports each process's CPU seconds spent and peak RSS seen.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = clockTicks();

export interface ProcSnapshot {
  readonly rssBytes: number;
  /** User + system CPU time since the process started. */
  readonly cpuSeconds: number;
}

/** The process's current RSS and CPU time, or undefined once it is gone. */
export function readProc(pid: number): ProcSnapshot | undefined {
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  return { rssBytes: rssBytesOf(pid), cpuSeconds: ticksOf(fields, false) / TICKS_PER_SECOND };
}

/**
 * A process and its descendants as one (Postfix: the master and the daemons it forks). Memory:
 * the proportional set size (PSS) summed over the live ones, so the libraries and the binary
 * they share count once, not once per daemon (reported in the `rssBytes` field). CPU: the live
 * ones' time plus what the reaped ones spent (each parent's cutime and cstime), so a daemon that
 * exits inside a window still counts.
 */
export function readProcTree(pid: number): ProcSnapshot | undefined {
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  let rssBytes = pssBytesOf(pid);
  let ticks = ticksOf(fields, true);
  for (const child of childrenOf(pid)) {
    const sub = readProcTree(child);
    if (sub === undefined) continue;
    rssBytes += sub.rssBytes;
    ticks += sub.cpuSeconds * TICKS_PER_SECOND;
  }
  return { rssBytes, cpuSeconds: ticks / TICKS_PER_SECOND };
}

/** proc(5) stat fields after the command name (which may hold spaces: they start after the last ')'). */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime (14) + stime (15), and with `reaped` cutime (16) + cstime (17). */
function ticksOf(fields: readonly string[], reaped: boolean): number {
  const own = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  return reaped ? own + Number(fields[13] ?? 0) + Number(fields[14] ?? 0) : own;
}

function rssBytesOf(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function pssBytesOf(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export interface ProcessUsage {
  readonly cpuSeconds: number;
  readonly peakRssBytes: number;
}

export interface WindowUsage {
  /** Each process tracked at any time during the window: CPU spent in it and its peak RSS. */
  readonly processes: Record<string, ProcessUsage>;
  readonly wallSeconds: number;
  /** Cores busy on the whole machine (all users), from /proc/stat. */
  readonly machineBusyCores: number;
}

export interface UsageWindow {
  end(): WindowUsage;
}

/** Busy and total CPU time of the whole machine, in ticks, summed over cores. */
function machineTicks(): { busy: number; total: number; cores: number } {
  try {
    const lines = readFileSync('/proc/stat', 'latin1').split('\n');
    const fields = (lines[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number); // user nice system idle iowait irq softirq steal
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return { busy: total - idle, total, cores: lines.filter((l) => /^cpu\d/.test(l)).length };
  } catch {
    return { busy: 0, total: 0, cores: 0 };
  }
}

interface OpenWindow {
  readonly startCpu: Map<string, number>;
  readonly lastCpu: Map<string, number>;
  readonly peak: Map<string, number>;
}

export class Sampler {
  readonly #pids = new Map<string, { readonly pid: number; readonly read: (pid: number) => ProcSnapshot | undefined }>();
  readonly #windows = new Set<OpenWindow>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs = 50) {}

  start(): void {
    this.#timer ??= setInterval(() => this.#tick(), this.intervalMs);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** `read`: readProcTree to count a process together with its descendants. */
  track(name: string, pid: number, read: (pid: number) => ProcSnapshot | undefined = readProc): void {
    this.#pids.set(name, { pid, read });
    const now = read(pid);
    for (const w of this.#windows) if (now !== undefined) this.#note(w, name, now, true);
  }

  /** Reads the process one last time (its CPU up to now counts), then forgets it. */
  untrack(name: string): void {
    this.#tick();
    this.#pids.delete(name);
  }

  window(): UsageWindow {
    const w: OpenWindow = { startCpu: new Map(), lastCpu: new Map(), peak: new Map() };
    const startedAt = performance.now();
    const machineAtStart = machineTicks();
    for (const [name, { pid, read }] of this.#pids) {
      const now = read(pid);
      if (now !== undefined) this.#note(w, name, now, true);
    }
    this.#windows.add(w);
    return {
      end: () => {
        this.#tick();
        this.#windows.delete(w);
        const processes: Record<string, ProcessUsage> = {};
        for (const [name, start] of w.startCpu) {
          processes[name] = { cpuSeconds: (w.lastCpu.get(name) ?? start) - start, peakRssBytes: w.peak.get(name) ?? 0 };
        }
        const machine = machineTicks();
        const totalTicks = machine.total - machineAtStart.total;
        return {
          processes,
          wallSeconds: (performance.now() - startedAt) / 1000,
          machineBusyCores: totalTicks > 0 ? ((machine.busy - machineAtStart.busy) / totalTicks) * machine.cores : 0,
        };
      },
    };
  }

  #tick(): void {
    for (const [name, { pid, read }] of this.#pids) {
      const now = read(pid);
      if (now === undefined) continue;
      for (const w of this.#windows) this.#note(w, name, now, false);
    }
  }

  #note(w: OpenWindow, name: string, now: ProcSnapshot, first: boolean): void {
    if (first || !w.startCpu.has(name)) w.startCpu.set(name, now.cpuSeconds);
    w.lastCpu.set(name, now.cpuSeconds);
    w.peak.set(name, Math.max(w.peak.get(name) ?? 0, now.rssBytes));
  }
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}
