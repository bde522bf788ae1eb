// RSS and CPU time of the bench's processes, from /proc (Linux). A Sampler polls every tracked
// process (or process tree); a window over a phase reports each one's CPU seconds spent and peak
// RSS seen. The tree sums and the per-process choice are pure functions of a tree read once.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = clockTicks();

export interface ProcSnapshot {
  readonly rssBytes: number;
  /** User + system CPU time since the process started. */
  readonly cpuSeconds: number;
  /** A supervised tree: its worker processes (rssBytes is then the largest one's). */
  readonly processes?: number;
  /** A supervised tree: the supervisor's own RSS. */
  readonly rootRssBytes?: number;
}

/** The process's current RSS and CPU time, or undefined once it is gone. */
export function readProc(pid: number): ProcSnapshot | undefined {
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  return { rssBytes: rssBytesOf(pid), cpuSeconds: ticksOf(fields, false) / TICKS_PER_SECOND };
}

/** One process of a tree as read from /proc: its own figures and its live children. */
export interface ProcNode {
  readonly pid: number;
  /** Its own user + system CPU time. */
  readonly ownCpuSeconds: number;
  /** What its children that exited and were reaped spent (cutime + cstime). */
  readonly reapedCpuSeconds: number;
  /** Its memory, as the reader measured it (RSS or PSS). */
  readonly memoryBytes: number;
  readonly children: readonly ProcNode[];
}

/** A process and its live descendants, each with `memory(pid)`; undefined once the root is gone. */
export function readTree(pid: number, memory: (pid: number) => number): ProcNode | undefined {
  const fields = statFields(pid);
  if (fields === undefined) return undefined;
  const children = childrenOf(pid).flatMap((child) => readTree(child, memory) ?? []);
  return {
    pid,
    ownCpuSeconds: ticksOf(fields, false) / TICKS_PER_SECOND,
    reapedCpuSeconds: (ticksOf(fields, true) - ticksOf(fields, false)) / TICKS_PER_SECOND,
    memoryBytes: memory(pid),
    children,
  };
}

/** The CPU of every process of the tree, the live ones' and the reaped ones' alike. */
export function treeCpuSeconds(node: ProcNode): number {
  return node.children.reduce((sum, child) => sum + treeCpuSeconds(child), node.ownCpuSeconds + node.reapedCpuSeconds);
}

/** The tree as one: CPU of all, memory summed over the live processes. */
export function treeTotal(node: ProcNode): ProcSnapshot {
  const memory = (n: ProcNode): number => n.children.reduce((sum, child) => sum + memory(child), n.memoryBytes);
  return { rssBytes: memory(node), cpuSeconds: treeCpuSeconds(node) };
}

/**
 * A supervisor and the processes it forks to do the work (the gateway's primary and its listener
 * processes, Haraka's master and its nodes), judged per process: CPU of the whole tree, memory
 * of the largest worker process, and the supervisor's own memory beside it. A root without
 * children does the work itself: it is the one worker process, and no supervisor is reported.
 */
export function supervisedTree(node: ProcNode): ProcSnapshot {
  const workers = node.children.length === 0 ? [node] : node.children;
  return {
    rssBytes: Math.max(...workers.map((w) => w.memoryBytes)),
    cpuSeconds: treeCpuSeconds(node),
    processes: workers.length,
    ...(node.children.length === 0 ? {} : { rootRssBytes: node.memoryBytes }),
  };
}

/**
 * A process and its descendants as one (Postfix: the master and the daemons it forks). Memory:
 * the proportional set size (PSS) summed over the live ones, so the libraries and the binary
 * they share count once, not once per daemon (reported in the `rssBytes` field). CPU: the live
 * ones' time plus what the reaped ones spent (each parent's cutime and cstime), so a daemon that
 * exits inside a window still counts.
 */
export function readProcTree(pid: number): ProcSnapshot | undefined {
  const tree = readTree(pid, pssBytesOf);
  return tree === undefined ? undefined : treeTotal(tree);
}

/** A supervisor and its worker processes (supervisedTree), each process's memory its RSS. */
export function readSupervisedTree(pid: number): ProcSnapshot | undefined {
  const tree = readTree(pid, rssBytesOf);
  return tree === undefined ? undefined : supervisedTree(tree);
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
  /** A supervised tree: the most worker processes seen at once. */
  readonly processes?: number;
  /** A supervised tree: the supervisor's own peak RSS. */
  readonly peakRootRssBytes?: number;
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
  readonly processes: Map<string, number>;
  readonly rootPeak: Map<string, number>;
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

  /** `read`: readProcTree or readSupervisedTree to count a process together with its descendants. */
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
    const w: OpenWindow = { startCpu: new Map(), lastCpu: new Map(), peak: new Map(), processes: new Map(), rootPeak: new Map() };
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
          const count = w.processes.get(name);
          const rootPeak = w.rootPeak.get(name);
          processes[name] = {
            cpuSeconds: (w.lastCpu.get(name) ?? start) - start,
            peakRssBytes: w.peak.get(name) ?? 0,
            ...(count === undefined ? {} : { processes: count }),
            ...(rootPeak === undefined ? {} : { peakRootRssBytes: rootPeak }),
          };
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
    const fresh = first || !w.startCpu.has(name);
    if (fresh) w.startCpu.set(name, now.cpuSeconds);
    // CPU time only grows: a tree read while a child is being reaped can miss it for one read.
    w.lastCpu.set(name, fresh ? now.cpuSeconds : Math.max(w.lastCpu.get(name) ?? 0, now.cpuSeconds));
    w.peak.set(name, Math.max(w.peak.get(name) ?? 0, now.rssBytes));
    if (now.processes !== undefined) w.processes.set(name, Math.max(w.processes.get(name) ?? 0, now.processes));
    if (now.rootRssBytes !== undefined) w.rootPeak.set(name, Math.max(w.rootPeak.get(name) ?? 0, now.rootRssBytes));
  }
}

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}
