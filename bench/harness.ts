// Runs a bench plan: starts every process, drives the sink and the gateway with the same
// generator and the same messages, measures each phase, stops everything. Returns the results;
// run.ts writes and prints them, the test suite checks their shape.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { type Gateway, startGateway } from './gateway.js';
import { type GeneratorAnswer, type GeneratorRequest, isGeneratorAnswer, isSinkListening } from './generator-protocol.js';
import { evaluateGoals } from './goals.js';
import { endToEnd, waitUntilEnded } from './intake-times.js';
import type { LoadResult, LoadSpec } from './load.js';
import type { SizeName } from './messages.js';
import { measurePdfCost } from './pdf-cost.js';
import { installPublishedSmtpServer } from './peer-install.js';
import { type Peer, startPeers } from './peers.js';
import type { BenchPlan } from './plan.js';
import { readSupervisedTree, Sampler } from './proc-stats.js';
import { forkBench, type IpcProcess, nextMessage } from './processes.js';
import {
  type AcceptCell,
  type BenchResult,
  coresBusy,
  type EndToEndRun,
  type LoadSummary,
  PEER_LABEL,
  type PeerName,
  type RssProbe,
  type ServerRun,
  summary,
} from './results.js';

export interface HarnessOptions {
  /** Progress lines. */
  readonly log: (line: string) => void;
  /** Extra node arguments per gateway process (profiling). */
  readonly nodeArgsFor?: (name: 'listener' | 'worker' | 'sandbox') => readonly string[];
  /** Keep the temporary directory (process logs, Redis data) after the run. */
  readonly keepTemp?: boolean;
  /**
   * Also drive the peers in every accept cell, after the gateway: Haraka (bench/haraka-peer.ts),
   * then a private Postfix (bench/postfix-peer.ts) where Postfix can run.
   */
  readonly peers?: boolean;
  /** The sink on the project's patched smtp-server instead of the published one. */
  readonly patchedSink?: boolean;
  /** The gateway's listener processes (SMTP_PROCESSES), and Haraka's; default: one per core. */
  readonly smtpProcesses?: number;
  /** Told each smtp role's pid as it starts (the primary, with more than one listener process). */
  readonly onListener?: (pid: number) => void;
}

export async function runBenchmark(plan: BenchPlan, options: HarnessOptions): Promise<BenchResult> {
  const started = Date.now();
  const loadAtStart = loadavg()[0] ?? 0;
  const smtpProcesses = options.smtpProcesses ?? availableParallelism();
  const temp = mkdtempSync(join(tmpdir(), 'letter-intake-bench-'));
  const logDir = join(temp, 'logs');
  const dataDir = join(temp, 'redis');
  mkdirSync(logDir);
  mkdirSync(dataDir);
  const sampler = new Sampler();
  sampler.start();
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0)) await stop().catch(() => {});
  };
  // Interrupted: every process stopped as at the end (Postfix's master is a daemon no signal
  // from the terminal reaches), then exit 128 + the signal's number. A second signal kills at once.
  const onSignal = (signal: NodeJS.Signals): void => {
    options.log(`${signal}: stopping every process of the run (temporary files in ${temp})`);
    void stopAll().finally(() => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let failed = true;
  try {
    const runId = `${started.toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
    const generator = forkBench('generator', 'generator.ts', { BENCH_RUN_ID: runId }, logDir);
    stops.push(() => generator.stop());
    sampler.track('generator', generator.pid);
    const sinkModule = options.patchedSink === true ? 'smtp-server' : await installPublishedSmtpServer(options.log);
    const sink = forkBench('sink', 'sink.ts', { SINK_SMTP_SERVER: sinkModule }, logDir);
    stops.push(() => sink.stop());
    sampler.track('sink', sink.pid);
    const sinkPort = await nextMessage(sink, (m) => (isSinkListening(m) ? m.port : undefined));
    const peers = options.peers === true ? await startPeers({ temp, logDir }, smtpProcesses, sampler, stops, options.log) : undefined;
    const gateway = await startGateway({
      logDir,
      dataDir,
      sampler,
      workerConcurrency: plan.workerConcurrency,
      smtpProcesses,
      ...(options.onListener === undefined ? {} : { onListener: options.onListener }),
      ...(options.nodeArgsFor === undefined ? {} : { nodeArgsFor: options.nodeArgsFor }),
    });
    stops.unshift(() => gateway.stop());
    const wireBytes = await prepare(generator, plan.sizes);
    options.log(`processes up in ${((Date.now() - started) / 1000).toFixed(1)} s, SMTP_PROCESSES ${smtpProcesses} (logs: ${logDir})`);

    const load = (spec: LoadSpec): Promise<LoadResult> => runLoad(generator, spec);
    const accept: AcceptCell[] = [];
    const runs: EndToEndRun[] = [];
    let rssProbe: RssProbe | undefined;
    for (const [index, size] of plan.sizes.entries()) {
      // Each size starts with a fresh listener, so its memory figures are its own.
      const probing = size === '10MB' && plan.rssProbe !== undefined;
      if (index > 0 && (plan.freshListenerPerSize || probing)) await gateway.restartListener();
      if (probing && plan.rssProbe !== undefined) {
        rssProbe = await probeListenerRss(plan.rssProbe, { gateway, sampler, load, log: options.log });
        if (plan.freshListenerPerSize) await gateway.restartListener();
      }
      accept.push(...(await acceptCells(plan, size, { gateway, sinkPort, peers: peers?.peers ?? [], sampler, load, log: options.log })));
      runs.push(...(await endToEndRuns(plan, size, { gateway, sampler, load, log: options.log })));
    }
    const pdfCost = await measurePdfCost(options.log);

    const result: BenchResult = {
      meta: {
        startedAt: new Date(started).toISOString(),
        durationSec: Math.round((Date.now() - started) / 1000),
        plan: plan.name,
        node: process.version,
        cpus: `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown'}`,
        memoryGB: Math.round(totalmem() / 1e9),
        loadAverage: { start: loadAtStart, end: loadavg()[0] ?? 0 },
        sink:
          options.patchedSink === true
            ? "the project's own smtp-server (with patches/smtp-server+*.patch)"
            : "smtp-server as published (bench/.peers/smtp-server, without the project's patch)",
        generator:
          'bench/generator.ts (own, one process, no PIPELINING; Postfix smtp-source not used: it sends one fixed message, which the gateway would de-duplicate by Message-ID)',
        redis: gateway.redis.settings,
        rawStoreSealed: process.env.RAW_STORE_KEY !== undefined,
        workerConcurrency: plan.workerConcurrency,
        smtpProcesses,
        e2eWorkers: plan.e2eWorkers,
        wireBytes,
        ...(peers === undefined ? {} : { postfix: peers.postfix }),
      },
      accept,
      runs,
      rssProbe,
      pdfCost,
      goals: [],
    };
    failed = false;
    return { ...result, goals: evaluateGoals(result) };
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await stopAll();
    sampler.stop();
    if (failed || options.keepTemp === true) options.log(`temporary files kept in ${temp}`);
    else rmSync(temp, { recursive: true, force: true });
  }
}

interface PhaseDeps {
  readonly gateway: Gateway;
  readonly sampler: Sampler;
  readonly load: (spec: LoadSpec) => Promise<LoadResult>;
  readonly log: (line: string) => void;
}

async function acceptCells(
  plan: BenchPlan,
  size: SizeName,
  deps: PhaseDeps & { readonly sinkPort: number; readonly peers: readonly Peer[] },
): Promise<AcceptCell[]> {
  const { gateway, sampler } = deps;
  const cells: AcceptCell[] = [];
  await gateway.stopWorkers();
  for (const sessions of plan.accept.sessions) {
    for (const mode of plan.accept.modes) {
      const spec = { size, sessions, mode, durationMs: plan.accept.durationMs[size], maxMessages: plan.accept.maxMessages[size] };
      // Sink first, then the gateway, back to back: the same noise for both.
      let window = sampler.window();
      const sinkLoad = await deps.load({ ...spec, port: deps.sinkPort });
      const sinkUsage = window.end();
      window = sampler.window();
      const gatewayLoad = await deps.load({ ...spec, port: gateway.smtpPort });
      const gatewayUsage = window.end();
      await gateway.redis.flush(); // no worker runs: the accepted messages are not needed any more
      const peerRuns: Partial<Record<PeerName, ServerRun>> = {};
      for (const peer of deps.peers) {
        window = sampler.window();
        const peerLoad = await deps.load({ ...spec, port: peer.port });
        await peer.settle?.(deps.log);
        const peerUsage = window.end();
        peerRuns[peer.name] = { load: summary(peerLoad), usage: peerUsage.processes, cores: coresBusy(peerUsage) };
      }
      const ratio = sinkLoad.acceptedPerSec > 0 ? gatewayLoad.acceptedPerSec / sinkLoad.acceptedPerSec : 0;
      cells.push({
        size,
        sessions,
        mode,
        ratio,
        sink: { load: summary(sinkLoad), usage: sinkUsage.processes, cores: coresBusy(sinkUsage) },
        gateway: { load: summary(gatewayLoad), usage: gatewayUsage.processes, cores: coresBusy(gatewayUsage) },
        ...peerRuns,
      });
      const peerLines = deps.peers.map(({ name }) => {
        const run = peerRuns[name];
        if (run === undefined) return '';
        const label = PEER_LABEL[name];
        return `, ${label} ${run.load.acceptedPerSec.toFixed(1)}/s (gateway ÷ ${label} ${factorOf(gatewayLoad.acceptedPerSec, run.load.acceptedPerSec)})${problems(run.load)}`;
      });
      deps.log(
        `${size} ${mode} ×${sessions}: sink ${sinkLoad.acceptedPerSec.toFixed(1)}/s, gateway ${gatewayLoad.acceptedPerSec.toFixed(1)}/s (${(ratio * 100).toFixed(0)}%)${problems(gatewayLoad)}${peerLines.join('')}`,
      );
    }
  }
  return cells;
}

async function probeListenerRss(probe: NonNullable<BenchPlan['rssProbe']>, deps: PhaseDeps): Promise<RssProbe> {
  const { gateway } = deps;
  await gateway.stopWorkers();
  await gateway.redis.flush();
  const idle = readSupervisedTree(gateway.listenerPid());
  const window = deps.sampler.window();
  const load = await deps.load({
    port: gateway.smtpPort,
    size: '10MB',
    sessions: probe.sessions,
    mode: 'reuse',
    durationMs: 600_000,
    maxMessages: probe.messages,
  });
  const listener = window.end().processes.listener;
  await gateway.redis.flush();
  const result: RssProbe = {
    sessions: probe.sessions,
    load: summary(load),
    idleRssBytes: idle?.rssBytes ?? 0,
    peakRssBytes: listener?.peakRssBytes ?? 0,
    ...(idle?.rootRssBytes === undefined ? {} : { primaryIdleRssBytes: idle.rootRssBytes }),
    ...(listener?.peakRootRssBytes === undefined ? {} : { primaryPeakRssBytes: listener.peakRootRssBytes }),
  };
  const primary =
    result.primaryPeakRssBytes === undefined
      ? ''
      : `; primary ${mib(result.primaryIdleRssBytes ?? 0)} idle, ${mib(result.primaryPeakRssBytes)} peak`;
  deps.log(
    `10MB memory probe, ${probe.sessions} sessions: fresh listener ${mib(result.idleRssBytes)} idle, ${mib(result.peakRssBytes)} peak per listener process${primary}, ${load.accepted}/${load.sent} accepted${problems(load)}`,
  );
  return result;
}

const mib = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MB`;

async function endToEndRuns(plan: BenchPlan, size: SizeName, deps: PhaseDeps): Promise<EndToEndRun[]> {
  const { gateway, sampler } = deps;
  const { redis } = gateway;
  const runs: EndToEndRun[] = [];
  const settle = (ids: readonly string[]) => waitUntilEnded(redis.client, gateway.prefix, ids, plan.settleTimeoutMs);

  for (const workers of plan.drain?.workers ?? []) {
    const messages = plan.drain?.messages[size] ?? 0;
    if (messages === 0) continue;
    await gateway.stopWorkers();
    await redis.flush();
    await gateway.startWorkers(workers);
    const warmUp = (plan.drain?.warmUpPerWorker[size] ?? 0) * workers;
    if (warmUp > 0) {
      // Not measured: every process through its first letters (code loaded and optimised).
      const warm = await deps.load({ port: gateway.smtpPort, size, sessions: 8, mode: 'reuse', durationMs: 600_000, maxMessages: warmUp });
      await settle(warm.intakeIds);
    }
    // Jobs wait in the paused queue until the preload is complete, so all workers start together.
    await gateway.pauseQueue();
    const preload = await deps.load({
      port: gateway.smtpPort,
      size,
      sessions: 8,
      mode: 'reuse',
      durationMs: 600_000,
      maxMessages: messages,
    });
    const window = sampler.window();
    await gateway.resumeQueue();
    const times = await settle(preload.intakeIds);
    const e2e = endToEnd(times, 'processing');
    const usage = window.end();
    runs.push({
      size,
      kind: 'drain',
      workers,
      sessions: 8,
      offeredPerSec: undefined,
      load: summary(preload),
      e2e,
      usage: usage.processes,
      cores: coresBusy(usage),
    });
    deps.log(
      `${size} drain, ${workers} worker(s): ${e2e.letters}/${preload.accepted} letters, ${e2e.lettersPerSec.toFixed(1)}/s${notSubmitted(e2e.notSubmitted)}`,
    );
  }

  if (plan.fixedLoad !== undefined || plan.saturation !== undefined) {
    await gateway.stopWorkers();
    await redis.flush();
    await gateway.startWorkers(plan.e2eWorkers);
  }
  const e2eRun = async (kind: 'fixed' | 'saturation', spec: LoadSpec): Promise<void> => {
    const window = sampler.window();
    const loadResult = await deps.load(spec);
    const e2e = endToEnd(await settle(loadResult.intakeIds), 'queued');
    const usage = window.end();
    runs.push({
      size,
      kind,
      workers: plan.e2eWorkers,
      sessions: spec.sessions,
      offeredPerSec: spec.ratePerSec,
      load: summary(loadResult),
      e2e,
      usage: usage.processes,
      cores: coresBusy(usage),
    });
    const l = e2e.latencyMs;
    deps.log(
      `${size} ${kind}${spec.ratePerSec === undefined ? '' : ` ${spec.ratePerSec}/s`}: ${e2e.letters}/${loadResult.accepted} letters, ${e2e.lettersPerSec.toFixed(1)}/s, p50 ${l.p50} p99 ${l.p99} max ${l.max} ms${notSubmitted(e2e.notSubmitted)}${problems(loadResult)}`,
    );
  };
  if (plan.fixedLoad !== undefined) {
    const rate = plan.fixedLoad.ratePerSec[size];
    const durationMs = plan.fixedLoad.durationMs[size];
    // Bounded by count, not time: when the gateway falls behind the schedule, the run takes
    // longer and the achieved rate (reported beside the offered one) shows it.
    await e2eRun('fixed', {
      port: gateway.smtpPort,
      size,
      sessions: plan.fixedLoad.sessions,
      mode: 'reuse',
      ratePerSec: rate,
      durationMs: durationMs * 10,
      maxMessages: Math.max(1, Math.round((rate * durationMs) / 1000)),
    });
  }
  if (plan.saturation !== undefined) {
    await e2eRun('saturation', {
      port: gateway.smtpPort,
      size,
      sessions: plan.saturation.sessions,
      mode: 'reuse',
      durationMs: 600_000,
      maxMessages: plan.saturation.messages[size],
    });
  }
  await gateway.stopWorkers();
  await redis.flush();
  return runs;
}

async function prepare(generator: IpcProcess, sizes: readonly SizeName[]): Promise<Record<string, number>> {
  const answer = await ask(generator, { kind: 'prepare', id: nextRequestId(), sizes });
  if (answer.kind !== 'prepared') throw new Error(`generator: ${answer.kind === 'error' ? answer.message : 'unexpected answer'}`);
  return { ...answer.wireBytes };
}

async function runLoad(generator: IpcProcess, spec: LoadSpec): Promise<LoadResult> {
  const answer = await ask(generator, { kind: 'load', id: nextRequestId(), spec });
  if (answer.kind !== 'result') throw new Error(`generator: ${answer.kind === 'error' ? answer.message : 'unexpected answer'}`);
  return answer.result;
}

function ask(generator: IpcProcess, request: GeneratorRequest): Promise<GeneratorAnswer> {
  return generator.request(request, (a) => (isGeneratorAnswer(a) && a.id === request.id ? a : undefined));
}

let requestId = 0;
const nextRequestId = (): number => (requestId += 1);

const factorOf = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(2)}×` : '—');

function problems(load: LoadSummary): string {
  const other = Object.entries(load.replies).filter(([code]) => code !== '250');
  if (load.errors === 0 && other.length === 0) return '';
  return ` [errors ${load.errors}${other.map(([c, n]) => `, ${c}×${n}`).join('')}${load.firstError === undefined ? '' : `: ${load.firstError}`}]`;
}

function notSubmitted(counts: Readonly<Record<string, number>>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? '' : ` [not submitted: ${entries.map(([s, n]) => `${s} ${n}`).join(', ')}]`;
}
