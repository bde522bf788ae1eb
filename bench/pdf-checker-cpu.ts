// The deep PDF checks' cost per PDF as the worker pays it: through a checker thread (the move to
// the thread, the thread's work and its garbage collections), not in this process as
// `npm run bench -- --pdf` measures the inspector alone. CPU of the whole process per PDF, each
// PDF freshly allocated as the worker's decoded attachment is; mean (what a drain pays: the
// collections included), median and p90 over the runs.
//
//   npm exec -- tsx bench/pdf-checker-cpu.ts [--bytes 10000000] [--runs 40]
import { parseArgs } from 'node:util';
import { growHeapsAsAServer } from '../src/fast-paths/heap-growth.js';
import { createPdfChecker } from '../src/pdf/checker-pool.js';
import { paddedPdf } from './padded-pdf.js';
import { mean, quantile } from './stats.js';

const { values } = parseArgs({ options: { bytes: { type: 'string', default: '10000000' }, runs: { type: 'string', default: '40' } } });
const pdf = paddedPdf(Number(values.bytes));
const runs = Number(values.runs);
growHeapsAsAServer(); // as the worker process does
const checker = createPdfChecker({ threads: 1, timeoutMs: 10_000, memoryMb: 256 });
await checker.warm();

const cpuMs: number[] = [];
for (let run = 0; run < runs; run += 1) {
  const started = process.cpuUsage();
  const bytes = Buffer.allocUnsafe(pdf.length);
  pdf.copy(bytes);
  await checker.inspect(bytes);
  const used = process.cpuUsage(started);
  cpuMs.push((used.user + used.system) / 1000);
}
await checker.close();
console.log(
  `${pdf.length} bytes, ${runs} PDFs: CPU per PDF mean ${mean(cpuMs).toFixed(2)} ms, median ${quantile(cpuMs, 0.5).toFixed(2)} ms, p90 ${quantile(cpuMs, 0.9).toFixed(2)} ms`,
);
