// Group commit on and off, side by side: the built listener (no worker) with GROUP_COMMIT=off and
// =on, 10 KB messages over reused connections from 8 and 32 sessions, the settings alternating
// round after round so that both see the same machine. Prints accepted/s and the reply time
// (end of data → reply) per cell, and the median over the rounds.
// `npm run build && npx tsx bench/group-commit.ts [--rounds 3] [--duration-ms 3000]`
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startGateway } from './gateway.js';
import { type GeneratorAnswer, type GeneratorRequest, isGeneratorAnswer } from './generator-protocol.js';
import type { LoadResult, LoadSpec } from './load.js';
import { Sampler } from './proc-stats.js';
import { forkBench, type IpcProcess } from './processes.js';
import { median } from './stats.js';

const SETTINGS = ['off', 'on'] as const;
const SESSIONS = [8, 32] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '3' }, 'duration-ms': { type: 'string', default: '3000' } },
  });
  const rounds = Number(values.rounds);
  const durationMs = Number(values['duration-ms']);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const temp = mkdtempSync(join(tmpdir(), 'letter-intake-group-bench-'));
  const logDir = join(temp, 'logs');
  mkdirSync(logDir);
  const sampler = new Sampler();
  sampler.start();
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const generator = forkBench('generator', 'generator.ts', { BENCH_RUN_ID: runId }, logDir);
  const results: { setting: string; sessions: number; load: LoadResult; listenerCpuMs: number; redisCpuMs: number }[] = [];
  log(
    `load average at start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  try {
    await ask(generator, { kind: 'prepare', id: nextId(), sizes: ['10KB'] });
    for (let round = 1; round <= rounds; round++) {
      for (const setting of round % 2 === 1 ? SETTINGS : [...SETTINGS].reverse()) {
        const dataDir = join(temp, `redis-${round}-${setting}`);
        mkdirSync(dataDir);
        // one listener process: its CPU is read from that one process
        const gateway = await startGateway({
          logDir,
          dataDir,
          sampler,
          workerConcurrency: 1,
          smtpProcesses: 1,
          extraEnv: { GROUP_COMMIT: setting },
        });
        try {
          // a short warm-up, so that both settings are measured on an optimised listener
          await load(generator, {
            port: gateway.smtpPort,
            size: '10KB',
            sessions: 8,
            mode: 'reuse',
            durationMs: 1000,
            maxMessages: 20_000,
          });
          for (const sessions of SESSIONS) {
            await gateway.redis.flush();
            const spec: LoadSpec = { port: gateway.smtpPort, size: '10KB', sessions, mode: 'reuse', durationMs, maxMessages: 50_000 };
            const window = sampler.window();
            const result = await load(generator, spec);
            const usage = window.end().processes;
            const perMessage = (name: string): number => ((usage[name]?.cpuSeconds ?? 0) * 1000) / Math.max(1, result.accepted);
            const listenerCpuMs = perMessage('listener');
            const redisCpuMs = perMessage('redis');
            results.push({ setting, sessions, load: result, listenerCpuMs, redisCpuMs });
            const other = Object.entries(result.replies).filter(([code]) => code !== '250');
            log(
              `round ${round} GROUP_COMMIT=${setting} ${sessions} sessions: ${result.acceptedPerSec.toFixed(0)}/s, reply p50 ${result.replyMs.p50.toFixed(0)} p99 ${result.replyMs.p99.toFixed(0)} ms, CPU per message: listener ${listenerCpuMs.toFixed(2)} ms, Redis ${redisCpuMs.toFixed(2)} ms${other.length > 0 ? ` (other replies ${JSON.stringify(Object.fromEntries(other))})` : ''}`,
            );
          }
        } finally {
          await gateway.stop();
        }
      }
    }
  } finally {
    sampler.stop();
    await generator.stop();
    rmSync(temp, { recursive: true, force: true });
  }
  log(
    `load average at end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const rows = [
    '| GROUP_COMMIT | sessions | accepted/s (median of rounds) | reply p50 ms | reply p99 ms | listener CPU ms/msg | Redis CPU ms/msg | rounds: accepted/s |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const sessions of SESSIONS) {
    for (const setting of SETTINGS) {
      const mine = results.filter((r) => r.setting === setting && r.sessions === sessions);
      const cells = mine.map((r) => r.load);
      rows.push(
        `| ${setting} | ${sessions} | ${median(cells.map((c) => c.acceptedPerSec)).toFixed(0)} | ${median(cells.map((c) => c.replyMs.p50)).toFixed(0)} | ${median(cells.map((c) => c.replyMs.p99)).toFixed(0)} | ${median(mine.map((r) => r.listenerCpuMs)).toFixed(2)} | ${median(mine.map((r) => r.redisCpuMs)).toFixed(2)} | ${cells.map((c) => c.acceptedPerSec.toFixed(0)).join(', ')} |`,
      );
    }
  }
  process.stdout.write(`${rows.join('\n')}\n`);
}

async function load(generator: IpcProcess, spec: LoadSpec): Promise<LoadResult> {
  const answer = await ask(generator, { kind: 'load', id: nextId(), spec });
  if (answer.kind !== 'result') throw new Error(`generator: ${answer.kind === 'error' ? answer.message : 'unexpected answer'}`);
  return answer.result;
}

function ask(generator: IpcProcess, request: GeneratorRequest): Promise<GeneratorAnswer> {
  return generator.request(request, (a) => (isGeneratorAnswer(a) && a.id === request.id ? a : undefined));
}

let id = 0;
const nextId = (): number => (id += 1);

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
