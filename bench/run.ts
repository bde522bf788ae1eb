// `npm run bench` (full sweep, about 6 minutes, about 9 with --peers), `npm run bench -- --quick` (under two minutes),
// `npm run bench -- --profile [--size 1MB]` (CPU profiles of listener, worker and sandbox API),
// `npm run bench -- --pdf` (only the PDF checks' cost per PDF, seconds).
// `--keep` keeps the temporary directory with every process's log and the Redis data.
// `--peers` also drives Haraka (SPF + DKIM verify, discard queue) and a private Postfix (bench/postfix/, discard
// transport; skipped with one line where it cannot run) in every accept cell.
// `--patched-sink` runs the sink on the project's patched smtp-server instead of the published one.
// `--smtp-processes N`: the gateway's listener processes (SMTP_PROCESSES) and Haraka's; default one per core.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runBenchmark } from './harness.js';
import { isSizeName, SIZE_NAMES } from './messages.js';
import { measurePdfCost, pdfCostTable } from './pdf-cost.js';
import { PLANS } from './plan.js';
import { REPO } from './processes.js';
import { runProfiles } from './profile.js';
import { renderReport, writeReport } from './report.js';

const RESULTS_DIR = join(REPO, 'bench', 'results');

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      size: { type: 'string', multiple: true },
      keep: { type: 'boolean', default: false },
      pdf: { type: 'boolean', default: false },
      peers: { type: 'boolean', default: false },
      'patched-sink': { type: 'boolean', default: false },
      'smtp-processes': { type: 'string' },
    },
  });
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const requested = values.size ?? [];
  const bad = requested.filter((s) => !isSizeName(s));
  if (bad.length > 0) {
    log(`unknown size ${bad.join(', ')}; sizes: ${SIZE_NAMES.join(', ')}`);
    return 64;
  }
  const sizes = requested.filter(isSizeName);
  const smtpProcesses = values['smtp-processes'] === undefined ? availableParallelism() : Number(values['smtp-processes']);
  // the gateway's own bounds for SMTP_PROCESSES
  if (!Number.isInteger(smtpProcesses) || smtpProcesses < 1 || smtpProcesses > 256) {
    log(`--smtp-processes ${values['smtp-processes'] ?? ''}: expected a whole number, 1 to 256`);
    return 64;
  }

  if (values.pdf) {
    process.stdout.write(`${pdfCostTable(await measurePdfCost(log)).join('\n')}\n`);
    return 0;
  }
  if (values.profile) {
    const text = await runProfiles(sizes.length > 0 ? sizes : SIZE_NAMES, join(RESULTS_DIR, 'profiles'), smtpProcesses, log);
    process.stdout.write(text);
    return 0;
  }
  const base = values.quick ? PLANS.quick : PLANS.full;
  const plan = sizes.length > 0 ? { ...base, sizes } : base;
  const result = await runBenchmark(plan, {
    log,
    keepTemp: values.keep,
    peers: values.peers,
    patchedSink: values['patched-sink'],
    smtpProcesses,
  });
  process.stdout.write(renderReport(result));
  const written = writeReport(result, RESULTS_DIR);
  log(`wrote ${[written.json, written.md, written.latest].filter((f) => f !== undefined).join(', ')}`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
