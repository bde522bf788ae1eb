// The deep PDF checks' cost per PDF: the inspector (src/pdf/inspect.ts, what a checker thread
// runs) in this process over the bench's own PDFs (bench/padded-pdf.ts: one page plus an
// incompressible stream, like a scanned letter), CPU time per PDF after one warm-up.
import { inspectPdf } from '../src/pdf/inspect.js';
import { paddedPdf } from './padded-pdf.js';

export interface PdfCost {
  readonly label: string;
  readonly bytes: number;
  readonly runs: number;
  /** CPU (user + system) per PDF, milliseconds. */
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly verdict: string;
}

const CASES: readonly [string, number][] = [['1 MB', 1_000_000], ['10 MB', 10_000_000]];
const RUNS = 5;

export async function measurePdfCost(log: (line: string) => void): Promise<PdfCost[]> {
  const costs: PdfCost[] = [];
  for (const [label, bytes] of CASES) {
    const pdf = paddedPdf(bytes);
    const facts = await inspectPdf(pdf);
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    for (let i = 0; i < RUNS; i += 1) await inspectPdf(pdf);
    const cpu = process.cpuUsage(cpuBefore);
    const cost: PdfCost = {
      label, bytes: pdf.length, runs: RUNS,
      cpuMs: (cpu.user + cpu.system) / 1000 / RUNS,
      wallMs: (performance.now() - wallBefore) / RUNS,
      verdict: facts.kind === 'opened' ? `opened, ${facts.pages} page(s)` : facts.kind,
    };
    log(`PDF check ${label}: ${cost.cpuMs.toFixed(1)} ms CPU per PDF`);
    costs.push(cost);
  }
  return costs;
}

export function pdfCostTable(costs: readonly PdfCost[] | undefined): string[] {
  if (costs === undefined || costs.length === 0) return [];
  return [
    '## PDF checks: cost per PDF',
    '',
    'The inspector a checker thread runs (pdf.js open + pages + actions, pdf-lib walk), in the bench process, after one warm-up; the PDFs are the bench messages\' (one page and an incompressible stream).',
    '',
    '| PDF | bytes | runs | CPU ms per PDF | wall ms per PDF | result |',
    '|---|---|---|---|---|---|',
    ...costs.map((c) => `| ${c.label} | ${c.bytes} | ${c.runs} | ${c.cpuMs.toFixed(1)} | ${c.wallMs.toFixed(1)} | ${c.verdict} |`),
    '',
  ];
}
