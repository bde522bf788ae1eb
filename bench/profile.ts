// `npm run bench -- --profile`: one small run per size with the listener, the worker and the
// sandbox API under `node --cpu-prof`, then the top self-time functions and packages of each
// profile. Profiles land in bench/results/profiles/ (git-ignored). With SMTP_PROCESSES > 1 the
// listener processes inherit the primary's --cpu-prof: the summary shows the primary and the
// busiest listener process (they all run the same code on their share of the sessions).
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runBenchmark } from './harness.js';
import type { SizeName } from './messages.js';
import type { BenchPlan } from './plan.js';

interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  readonly name: string;
  readonly selfMs: number;
  readonly share: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Time outside idle. */
  readonly busyMs: number;
  readonly functions: readonly ProfileEntry[];
  readonly packages: readonly ProfileEntry[];
}

/** The fields this summary reads, as V8 writes them (--cpu-prof). */
function isCpuProfile(value: unknown): value is CpuProfile {
  return (
    typeof value === 'object' &&
    value !== null &&
    'nodes' in value &&
    Array.isArray(value.nodes) &&
    'samples' in value &&
    Array.isArray(value.samples) &&
    'timeDeltas' in value &&
    Array.isArray(value.timeDeltas)
  );
}

/** Self time per function and per package (node_modules/<pkg>, node:internal, our dist/). */
export function summariseProfile(profile: CpuProfile, top = 12): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const fns = new Map<string, number>();
  const pkgs = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id);
    if (frame === undefined) return;
    total += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      return;
    }
    const where = frame.url === '' ? '' : ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    const fn = `${frame.functionName || '(anonymous)'}${where}`;
    fns.set(fn, (fns.get(fn) ?? 0) + us);
    const pkg = packageOf(frame.url, frame.functionName);
    pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + us);
  });
  const busy = total - idle;
  const rank = (m: Map<string, number>): ProfileEntry[] =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfMs: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return { totalMs: total / 1000, busyMs: busy / 1000, functions: rank(fns), packages: rank(pkgs) };
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  return dist !== -1 ? url.slice(dist + 1) : url.replace(/^file:\/\//, '');
}

function packageOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node core';
  const nm = url.lastIndexOf('node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') === true ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? url);
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) return `letter-intake ${url.slice(dist + 6).split('/')[0] ?? ''}`;
  return url;
}

const PROFILE_PLAN = (size: SizeName): BenchPlan => ({
  name: 'tiny',
  sizes: [size],
  accept: {
    sessions: [8],
    modes: ['reuse'],
    durationMs: { '10KB': 5000, '1MB': 5000, '10MB': 8000 },
    maxMessages: { '10KB': 100_000, '1MB': 10_000, '10MB': 1000 },
  },
  workerConcurrency: 4,
  drain: { workers: [1], messages: { '10KB': 1000, '1MB': 150, '10MB': 20 }, warmUpPerWorker: { '10KB': 0, '1MB': 0, '10MB': 0 } },
  e2eWorkers: 1,
  fixedLoad: undefined,
  saturation: undefined,
  freshListenerPerSize: false,
  rssProbe: undefined,
  settleTimeoutMs: 120_000,
});

export async function runProfiles(
  sizes: readonly SizeName[],
  outDir: string,
  smtpProcesses: number,
  log: (line: string) => void,
): Promise<string> {
  rmSync(outDir, { recursive: true, force: true });
  const sections: string[] = [
    '# CPU profiles (self time, share of the busy time)',
    '',
    smtpProcesses > 1
      ? `SMTP_PROCESSES ${smtpProcesses}: the listener is a primary and ${smtpProcesses} listener processes, each profiled; shown: the primary and the busiest listener process.`
      : 'SMTP_PROCESSES 1: the listener is one process.',
    '',
  ];
  for (const size of sizes) {
    const dirOf = (name: string): string => join(outDir, size, name);
    const primaries = new Set<number>();
    await runBenchmark(PROFILE_PLAN(size), {
      log: (line) => log(`[profile ${size}] ${line}`),
      smtpProcesses,
      onListener: (pid) => primaries.add(pid),
      nodeArgsFor: (name) => {
        mkdirSync(dirOf(name), { recursive: true });
        return ['--cpu-prof', '--cpu-prof-dir', dirOf(name)];
      },
    });
    for (const name of ['listener', 'worker', 'sandbox'] as const) {
      const profiles = readdirSync(dirOf(name))
        .filter((f) => f.endsWith('.cpuprofile'))
        .map((file) => {
          const profile: unknown = JSON.parse(readFileSync(join(dirOf(name), file), 'utf8'));
          if (!isCpuProfile(profile)) throw new Error(`${file} is not a V8 CPU profile`);
          return { file, summary: summariseProfile(profile) };
        });
      const shown =
        name === 'listener' && smtpProcesses > 1 ? listenerProfiles(profiles, primaries) : profiles.map((p) => ({ ...p, label: name }));
      for (const { label, summary } of shown) {
        if (summary.busyMs < 50) continue; // e.g. a worker of the accept phase that did nothing
        sections.push(
          `## ${size}: ${label} (${(summary.busyMs / 1000).toFixed(1)} s busy of ${(summary.totalMs / 1000).toFixed(1)} s)`,
          '',
        );
        sections.push('| Package | Self ms | Share |', '|---|---:|---:|');
        sections.push(
          ...summary.packages.slice(0, 8).map((e) => `| ${e.name} | ${e.selfMs.toFixed(0)} | ${(e.share * 100).toFixed(1)}% |`),
          '',
        );
        sections.push('| Function | Self ms | Share |', '|---|---:|---:|');
        sections.push(
          ...summary.functions.map(
            (e) => `| \`${e.name.replace(/\|/g, '\\|')}\` | ${e.selfMs.toFixed(0)} | ${(e.share * 100).toFixed(1)}% |`,
          ),
          '',
        );
      }
    }
  }
  const text = `${sections.join('\n')}\n`;
  writeFileSync(join(outDir, 'summary.md'), text);
  return text;
}

/** The pid in a --cpu-prof file name (CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile). */
export function profilePid(file: string): number | undefined {
  const pid = Number(file.split('.')[3]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** The primaries' profiles, and the busiest of their listener processes' (none: only the primaries'). */
export function listenerProfiles<P extends { readonly file: string; readonly summary: ProfileSummary }>(
  profiles: readonly P[],
  primaries: ReadonlySet<number>,
): (P & { readonly label: string })[] {
  const isPrimary = (p: P): boolean => primaries.has(profilePid(p.file) ?? -1);
  const busiest = profiles
    .filter((p) => !isPrimary(p))
    .reduce<P | undefined>((best, p) => (best === undefined || p.summary.busyMs > best.summary.busyMs ? p : best), undefined);
  return [
    ...profiles.filter(isPrimary).map((p) => ({ ...p, label: 'listener primary' })),
    ...(busiest === undefined ? [] : [{ ...busiest, label: 'listener process (the busiest)' }]),
  ];
}
