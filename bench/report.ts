// Renders a run's results as markdown (goals first, every row with its goal beside the figure)
// and writes bench/results/<date>[-plan].json and .md, and latest.md for a full run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ACCEPT_SHARE_GOAL,
  factor,
  LISTENER_RSS_GOAL_BYTES,
  lettersPerWorkerCpuSecond,
  P99_GOALS,
  peerRatio,
  WORKER_EFFICIENCY_TOLERANCE,
} from './goals.js';
import { SIZE_NAMES, type SizeName, sizeLabel } from './messages.js';
import { pdfCostTable } from './pdf-cost.js';
import { HARAKA_VERSION } from './peer-install.js';
import { cores, formatBytes, MB, mark, mb, ms, pct, perMessage, rate, ratio } from './report-format.js';
import { harakaShape, LISTENER_HEADINGS, LISTENER_NOTE, listenerColumns, listenerShape } from './report-listener.js';
import {
  type AcceptCell,
  type BenchResult,
  type EndToEndRun,
  PEER_LABEL,
  PEER_NAMES,
  type PeerName,
  type PostfixMeta,
  type Usage,
} from './results.js';

export function renderReport(r: BenchResult): string {
  const m = r.meta;
  const sizes = SIZE_NAMES.filter((s) => m.wireBytes[s] !== undefined);
  const lines = [
    `# letter-intake benchmark, ${m.startedAt.slice(0, 10)} (${m.plan} run, ${Math.round(m.durationSec / 6) / 10} min)`,
    '',
    `Machine: ${m.cpus}, ${m.memoryGB} GB, Node ${m.node}; all traffic on loopback, every process on the same cores; 1-minute load average ${m.loadAverage.start.toFixed(1)} at the start, ${m.loadAverage.end.toFixed(1)} at the end (other users' processes included).`,
    `Gateway in production shape: ${listenerShape(m.smtpProcesses)} (\`node dist/cli.js smtp\`), worker processes (\`node dist/cli.js worker\`, WORKER_CONCURRENCY ${m.workerConcurrency}), the sandbox Sender API in its own process, a private Redis (${m.redis})${sealedText(m.rawStoreSealed)}.`,
    `Messages (DKIM rsa-sha256 by acme.example, SPF pass, one Message-ID each): ${sizes.map((s) => `${sizeLabel(s)} = ${formatBytes(m.wireBytes[s] ?? 0)} on the wire`).join('; ')}.`,
    `Generator: ${m.generator}. Sink: bare smtp-server (no auth, no storage, drains DATA, no reverse DNS)${m.sink === undefined ? '' : `: ${m.sink}`}.`,
    '',
    '## Goals',
    '',
    '| Goal | Target | Measured | Met |',
    '|---|---|---|---|',
    ...r.goals.map((g) => `| ${g.name} | ${g.target} | ${g.measured} | ${mark(g.met)} |`),
    '',
    ...acceptTable(r),
    ...endToEndTable(r.runs),
    ...resourceTable(r, sizes),
    ...pdfCostTable(r.pdfCost),
    ...notes(r),
    ...postfixConfiguration(r.meta.postfix),
  ];
  return `${lines.join('\n')}\n`;
}

/** The peers a run drove: a peer's columns show when it ran in any cell, or Postfix was skipped. */
function peersOf(cells: readonly AcceptCell[], postfix: PostfixMeta | undefined): PeerName[] {
  return PEER_NAMES.filter((peer) => cells.some((c) => c[peer] !== undefined) || (peer === 'postfix' && postfix !== undefined));
}

/** `<peer> msg/s | <peer> ÷ sink | Gateway ÷ <peer>`, the last with its mark where a goal judges the cell. */
export function peerColumns(cell: AcceptCell, peer: PeerName): string[] {
  const run = cell[peer];
  if (run === undefined) return ['—', '—', '—'];
  const judged = peerRatio(cell, peer);
  const vsPeer =
    judged === undefined ? '—' : `${factor(judged.ratio)}${judged.goal === undefined ? '' : ` ${mark(judged.ratio >= judged.goal)}`}`;
  return [rate(run.load.acceptedPerSec), ratio(run.load.acceptedPerSec, cell.sink.load.acceptedPerSec), vsPeer];
}

export function peerHeadings(peer: PeerName): string[] {
  const name = PEER_LABEL[peer];
  return [`${name} msg/s`, `${name} ÷ sink`, `Gateway ÷ ${name}`];
}

function acceptTable(r: BenchResult): string[] {
  const cells = r.accept;
  const postfix = r.meta.postfix;
  if (cells.length === 0) return [];
  const peers = peersOf(cells, postfix);
  const rows = cells.map((c) => {
    const listener = c.gateway.usage.listener;
    const goal = ACCEPT_SHARE_GOAL[c.size];
    const refused = Object.entries(c.gateway.load.replies)
      .filter(([code]) => code !== '250')
      .map(([code, n]) => `${n}× ${code}`);
    // The goal is judged on reused connections; one message per connection is greeting-bound.
    const judged = c.mode === 'reuse' ? mark(c.ratio >= goal) : '(judged on reused)';
    const peerCells = peers.flatMap((peer) => peerColumns(c, peer)).map((cell) => `| ${cell} `);
    return `| ${c.size} | ${c.sessions} | ${c.mode === 'reuse' ? 'reused' : '1 per message'} | ${rate(c.sink.load.acceptedPerSec)} | ${rate(c.gateway.load.acceptedPerSec)} | ${pct(c.ratio)} | ≥ ${pct(goal)} ${judged} ${peerCells.join('')}| ${refused.length === 0 ? '' : refused.join(', ')}${c.gateway.load.errors > 0 ? ` ${c.gateway.load.errors} conn. errors` : ''}${peerProblems(c, peers)} | ${listenerColumns(listener, c.gateway.load.accepted).join(' | ')} | ${cores(c.sink.cores)} | ${cores(c.gateway.cores)} |`;
  });
  const headings = peers.flatMap(peerHeadings);
  return [
    '## Accept rate: gateway listener (no worker running) vs bare sink, same generator, same messages',
    '',
    `| Size | Sessions | Connections | Sink msg/s | Gateway msg/s | Gateway ÷ sink | Goal ${headings.map((h) => `| ${h} `).join('')}| Gateway refusals | ${LISTENER_HEADINGS.join(' | ')} | Cores busy, sink run (bench / machine) | Cores busy, gateway run |`,
    `|---|---:|---|---:|---:|---:|---${headings.map(() => '|---:').join('')}|---|${LISTENER_HEADINGS.map(() => '---:|').join('')}---:|---:|`,
    ...rows,
    '',
    ...(peers.includes('haraka')
      ? [
          `Haraka: version ${HARAKA_VERSION}, ${harakaShape(r.meta.smtpProcesses)}, plugins spf, dkim (verify), rcpt_to.in_host_list, queue/discard; DNS from fixtures/zone.json as for the gateway; driven right after the gateway with the same messages. Haraka greets at once (no 100 ms delay), so its one-message-per-connection figures are not capped like the sink's and the gateway's: compare reused connections.`,
          '',
        ]
      : []),
    ...(peers.includes('postfix') ? [postfixNote(postfix), ''] : []),
    ...(peers.length > 0
      ? [
          'Gateway ÷ peer: ✅/❌ where a goal judges the cell (reused connections; against Postfix at 10 KB only with 8 and 32 sessions), the figure alone elsewhere.',
          '',
        ]
      : []),
    `${LISTENER_NOTE} One message per connection is capped near sessions ÷ 0.1 s by smtp-server's 100 ms greeting delay, for sink and gateway alike. Cores busy: CPU time of the bench's own processes ÷ wall time, and of the whole machine (other users included) from /proc/stat.`,
    '',
  ];
}

function postfixNote(postfix: PostfixMeta | undefined): string {
  if (postfix === undefined || 'skipped' in postfix) return `Postfix: not run (${postfix?.skipped ?? 'no configuration recorded'}).`;
  return `Postfix: version ${postfix.version} (the system's package), a private instance on loopback with the main.cf and master.cf printed at the end (bench/postfix/): relay for intake.example only, every transport discard, queue files fsynced as shipped, no content filter, no chroot, no peer-name lookups; driven after Haraka with the same messages. Postfix greets at once; its CPU is that of the master and all its daemons together (those that exit included), its memory their summed proportional set size (shared pages counted once), its window ending once its queue is empty (discarding included).`;
}

/** A peer's refusals and connection errors in a cell, so a failing peer is not read as a slow one. */
function peerProblems(c: AcceptCell, peers: readonly PeerName[]): string {
  return peers
    .map((peer) => {
      const load = c[peer]?.load;
      if (load === undefined) return '';
      const refused = Object.entries(load.replies)
        .filter(([code]) => code !== '250')
        .map(([code, n]) => `${n}× ${code}`);
      const errors = load.errors > 0 ? [`${load.errors} conn. errors`] : [];
      return refused.length + errors.length === 0 ? '' : ` ${PEER_LABEL[peer]}: ${[...refused, ...errors].join(', ')}`;
    })
    .join('');
}

function postfixConfiguration(postfix: PostfixMeta | undefined): string[] {
  if (postfix === undefined || 'skipped' in postfix) return [];
  const fence = (file: string, text: string): string[] => [`${file}:`, '', '```', text.trimEnd(), '```', ''];
  return ['## Postfix configuration', '', ...fence('main.cf', postfix.mainCf), ...fence('master.cf', postfix.masterCf)];
}

function endToEndTable(runs: readonly EndToEndRun[]): string[] {
  if (runs.length === 0) return [];
  const one = (size: SizeName) => runs.find((x) => x.kind === 'drain' && x.size === size && x.workers === 1);
  const rows = runs.map((x) => {
    const l = x.e2e.latencyMs;
    const latency = x.kind === 'drain' ? '| — | — | — | — ' : `| ${ms(l.p50)} | ${ms(l.p95)} | ${ms(l.p99)} | ${ms(l.max)} `;
    const service = `${ms(x.e2e.serviceMs.p50)} / ${ms(x.e2e.serviceMs.p99)}`;
    return `| ${x.size} | ${describeLoad(x)} | ${x.workers} | ${x.load.accepted} | ${x.e2e.letters} | ${rate(x.e2e.lettersPerSec)} ${latency}| ${service} | ${x.e2e.meanInService.toFixed(1)} | ${cores(x.cores)} | ${goalFor(x, one(x.size))} |`;
  });
  return [
    '## End to end: the 250 reply → letter in PendingApproval (intake record timestamps)',
    '',
    '| Size | Load | Worker processes | Accepted | Letters | Letters/s | p50 ms | p95 ms | p99 ms | max ms | Worker service p50 / p99 ms | Jobs in service | Cores busy (bench / machine) | Goal |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows,
    '',
    'Drain: the queue is filled through the listener while paused, then released to 1 or 2 worker processes at once; letters/s from the first job taken to the last letter (worker stage only, the API sharing the same 2 cores). Fixed: open-loop offered rate. Saturation: closed loop, every session sending back to back while the workers run. Worker service: job taken → PendingApproval; jobs in service: their mean number over the run (at most worker processes × WORKER_CONCURRENCY).',
    '',
  ];
}

function describeLoad(x: EndToEndRun): string {
  if (x.kind === 'drain') return 'drain a preloaded queue';
  if (x.kind === 'fixed') return `${x.offeredPerSec ?? 0} msg/s offered (${rate(x.load.acceptedPerSec)} accepted/s)`;
  return `saturation, ${x.sessions} sessions`;
}

function goalFor(x: EndToEndRun, oneWorker: EndToEndRun | undefined): string {
  if (x.kind === 'fixed') {
    const g = P99_GOALS.find((p) => p.size === x.size && p.ratePerSec === x.offeredPerSec);
    return g === undefined ? '' : `p99 ≤ ${g.p99Ms / 1000} s ${mark(x.e2e.latencyMs.p99 <= g.p99Ms && x.e2e.letters === x.load.accepted)}`;
  }
  if (x.kind === 'drain') {
    const perCpu = lettersPerWorkerCpuSecond(x);
    const perCpu1 = oneWorker === undefined ? undefined : lettersPerWorkerCpuSecond(oneWorker);
    if (perCpu === undefined) return '';
    if (x.workers === 1 || perCpu1 === undefined) return `${perCpu.toFixed(0)} letters per worker CPU-s`;
    const factor = perCpu / perCpu1;
    return `${perCpu.toFixed(0)} letters per worker CPU-s, ${factor.toFixed(2)}× of 1 worker (within ${pct(WORKER_EFFICIENCY_TOLERANCE)}: ${mark(Math.abs(factor - 1) <= WORKER_EFFICIENCY_TOLERANCE)})`;
  }
  return '';
}

function resourceTable(r: BenchResult, sizes: readonly SizeName[]): string[] {
  const peers = PEER_NAMES.filter((peer) => r.accept.some((c) => c[peer] !== undefined));
  const rows = sizes.map((size) => {
    const reuse = r.accept.filter((c) => c.size === size && c.mode === 'reuse');
    const gw = sumUsage(reuse.map((c) => c.gateway.usage));
    const sk = sumUsage(reuse.map((c) => c.sink.usage));
    const peerCells = peers.map((peer) => {
      const usage = sumUsage(reuse.flatMap((c) => (c[peer] === undefined ? [] : [c[peer].usage]))).get(peer);
      const accepted = reuse.reduce((n, c) => n + (c[peer]?.load.accepted ?? 0), 0);
      return ` ${ms(perMessage(usage?.cpuSeconds, accepted))} | ${mb(usage?.peakRssBytes)} |`;
    });
    const accepted = reuse.reduce((n, c) => n + c.gateway.load.accepted, 0);
    const sunk = reuse.reduce((n, c) => n + c.sink.load.accepted, 0);
    const drain1 = r.runs.find((x) => x.kind === 'drain' && x.size === size && x.workers === 1);
    const worker = drain1 === undefined ? undefined : sumUsage([drain1.usage]);
    const letters = drain1?.e2e.letters ?? 0;
    const sizeRuns = r.runs.filter((x) => x.size === size);
    const workerPeak = peak(
      sizeRuns.map((x) => x.usage),
      (name) => name.startsWith('worker'),
    );
    const listenerUsages = [...r.accept.filter((c) => c.size === size).map((c) => c.gateway.usage), ...sizeRuns.map((x) => x.usage)];
    const listenerPeak = peak(listenerUsages, (n) => n === 'listener');
    const primaryPeak = peak(listenerUsages, (n) => n === 'listener', 'peakRootRssBytes');
    return `| ${size} | ${ms(perMessage(gw.get('listener')?.cpuSeconds, accepted))} | ${ms(perMessage(gw.get('redis')?.cpuSeconds, accepted))} | ${ms(perMessage(worker?.get('worker')?.cpuSeconds, letters))} | ${ms(perMessage(worker?.get('sandbox')?.cpuSeconds, letters))} | ${ms(perMessage(worker?.get('redis')?.cpuSeconds, letters))} | ${ms(perMessage(sk.get('sink')?.cpuSeconds, sunk))} | ${ms(perMessage(sk.get('generator')?.cpuSeconds, sunk))} | ${mb(listenerPeak)} | ${mb(primaryPeak)} | ${mb(workerPeak)} |${peerCells.join('')}`;
  });
  return [
    '## CPU time per message and peak memory, by process',
    '',
    `| Size | ${LISTENER_HEADINGS[0]} | Redis ms/msg (accept) | Worker CPU ms/letter (1 process) | Sandbox API ms/letter | Redis ms/letter (worker stage) | Sink ms/msg | Generator ms/msg | ${LISTENER_HEADINGS[1]} | ${LISTENER_HEADINGS[2]} | Worker peak RSS |${peers.map((peer) => ` ${PEER_LABEL[peer]} CPU ms/msg | ${PEER_LABEL[peer]} ${peer === 'postfix' ? 'peak PSS, all its processes' : 'peak RSS per process'} |`).join('')}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${peers.map(() => '---:|---:|').join('')}`,
    ...rows,
    '',
    `${r.meta.plan === 'full' ? 'Each size runs on a fresh listener process; peaks are per size. ' : ''}Listener peak RSS goal: ≤ ${LISTENER_RSS_GOAL_BYTES / MB} MB per listener process with 32 concurrent 10 MB messages, measured on a fresh listener (see Goals)${r.rssProbe === undefined ? '' : `: ${mb(r.rssProbe.idleRssBytes)} idle → ${mb(r.rssProbe.peakRssBytes)} peak${r.rssProbe.primaryPeakRssBytes === undefined ? '' : ` (primary ${mb(r.rssProbe.primaryIdleRssBytes)} → ${mb(r.rssProbe.primaryPeakRssBytes)})`}, ${r.rssProbe.load.accepted} of ${r.rssProbe.load.sent} accepted at ${rate(r.rssProbe.load.acceptedPerSec)} msg/s`}.`,
    '',
  ];
}

function notes(r: BenchResult): string[] {
  const out: string[] = [];
  const faster = r.accept.filter((c) => c.sink.load.acceptedPerSec > c.gateway.load.acceptedPerSec).length;
  if (r.accept.length > 0) {
    out.push(
      `- Generator not the bottleneck: it drove the sink faster than the gateway in ${faster} of ${r.accept.length} cells, from one process.`,
    );
  }
  const windows = [...r.accept.flatMap((c) => [c.sink.cores, c.gateway.cores]), ...r.runs.map((x) => x.cores)];
  const others = windows.length === 0 ? 0 : windows.reduce((sum, c) => sum + Math.max(0, c.machine - c.ours), 0) / windows.length;
  if (others > 0.25) {
    out.push(
      `- Other users' processes kept ${others.toFixed(2)} cores busy on average during the measurements (machine minus bench): absolute rates are depressed by that much CPU; the gateway ÷ sink ratios, measured back to back, less so.`,
    );
  }
  const missing = r.runs.reduce((n, x) => n + x.e2e.queuedMissing, 0);
  const ended = r.runs.reduce((n, x) => n + x.e2e.letters, 0);
  if (missing > 0) {
    out.push(
      `- ${missing} of ${ended} intake records have no \`at.queued\`: a worker took the job between the listener's queue.add and its received → queued transition, which was then refused. Their latency is timed from \`at.received\`.`,
    );
  }
  for (const x of r.runs) {
    const refused = Object.entries(x.load.replies).filter(([code]) => code !== '250');
    if (refused.length > 0)
      out.push(
        `- ${x.size} ${describeLoad(x)}: the listener refused ${refused.map(([code, n]) => `${n}× ${code}`).join(', ')} of ${x.load.sent} (${x.load.firstError ?? 'see the JSON'}).`,
      );
  }
  const unsettled = r.runs.filter((x) => x.e2e.letters < x.load.accepted);
  for (const x of unsettled) {
    out.push(
      `- ${x.size} ${x.kind}: ${x.load.accepted - x.e2e.letters} accepted messages did not become letters (${JSON.stringify(x.e2e.notSubmitted)}).`,
    );
  }
  return out.length === 0 ? [] : ['## Notes', '', ...out, ''];
}

export function writeReport(r: BenchResult, dir: string): { json: string; md: string; latest: string | undefined } {
  mkdirSync(dir, { recursive: true });
  const date = r.meta.startedAt.slice(0, 10);
  const stem = r.meta.plan === 'full' ? date : `${date}-${r.meta.plan}`;
  const markdown = renderReport(r);
  const json = join(dir, `${stem}.json`);
  const md = join(dir, `${stem}.md`);
  writeFileSync(json, `${JSON.stringify(r, null, 2)}\n`);
  writeFileSync(md, markdown);
  let latest: string | undefined;
  if (r.meta.plan === 'full' && SIZE_NAMES.every((size) => r.meta.wireBytes[size] !== undefined)) {
    latest = join(dir, 'latest.md');
    writeFileSync(latest, markdown);
  }
  return { json, md, latest };
}

/** CPU seconds and peak RSS summed over windows, with all worker-N folded into "worker". */
function sumUsage(usages: readonly Usage[]): Map<string, { cpuSeconds: number; peakRssBytes: number }> {
  const out = new Map<string, { cpuSeconds: number; peakRssBytes: number }>();
  for (const usage of usages) {
    for (const [name, u] of Object.entries(usage)) {
      const key = name.startsWith('worker') ? 'worker' : name;
      const prev = out.get(key) ?? { cpuSeconds: 0, peakRssBytes: 0 };
      out.set(key, { cpuSeconds: prev.cpuSeconds + u.cpuSeconds, peakRssBytes: Math.max(prev.peakRssBytes, u.peakRssBytes) });
    }
  }
  return out;
}

function peak(
  usages: readonly Usage[],
  match: (name: string) => boolean,
  field: 'peakRssBytes' | 'peakRootRssBytes' = 'peakRssBytes',
): number | undefined {
  const values = usages.flatMap((u) =>
    Object.entries(u)
      .filter(([n]) => match(n))
      .flatMap(([, v]) => v[field] ?? []),
  );
  return values.length === 0 ? undefined : Math.max(...values);
}

/** The raw store's sealing as the run had it (said only when the run recorded it). */
function sealedText(sealed: boolean | undefined): string {
  if (sealed === undefined) return '';
  return sealed ? '; raw store sealed (RAW_STORE_KEY)' : '; raw store as sent (no RAW_STORE_KEY)';
}
