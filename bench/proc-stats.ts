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
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
    // proc(5): fields after the command name, which may hold spaces, start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11] ?? 0) + Number(fields[12] ?? 0); // utime (14), stime (15)
    return { rssBytes: rssKb * 1024, cpuSeconds: ticks / TICKS_PER_SECOND };
  } catch {
    return undefined;
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
  readonly #pids = new Map<string, number>();
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

  track(name: string, pid: number): void {
    this.#pids.set(name, pid);
    const now = readProc(pid);
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
    for (const [name, pid] of this.#pids) {
      const now = readProc(pid);
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
    for (const [name, pid] of this.#pids) {
      const now = readProc(pid);
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
