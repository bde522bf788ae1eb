// The deep PDF checks' cost per PDF: the inspector (src/pdf/inspect.ts, what a checker thread
// runs) in this process over the bench's own PDFs (bench/padded-pdf.ts: one page plus an
// incompressible stream, like a scanned letter), CPU time per PDF after one warm-up.
import { inspectPdf } from '../src/pdf/inspect.js';
import { statementPdf } from '../test/helpers/pdf-samples.js';
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

const CASES: readonly [string, () => Promise<Buffer>][] = [
  ['1 MB', async () => paddedPdf(1_000_000)],
  ['10 MB', async () => paddedPdf(10_000_000)],
  // Structure rather than bytes: every page is loaded and walked.
  ['300 pages of text', () => statementPdf(300)],
];

const RUNS = 5;

export async function measurePdfCost(log: (line: string) => void): Promise<PdfCost[]> {
  const costs: PdfCost[] = [];
  for (const [label, build] of CASES) {
    const pdf = await build();
    const facts = await inspectPdf(pdf);
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    for (let i = 0; i < RUNS; i += 1) await inspectPdf(pdf);
    const cpu = process.cpuUsage(cpuBefore);
    const cost: PdfCost = {
      label,
      bytes: pdf.length,
      runs: RUNS,
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
    "The inspector a checker thread runs (pdf.js open + pages + actions, pdf-lib walk), in the bench process, after one warm-up; 1 MB and 10 MB are the bench messages' PDFs (one page and an incompressible stream). Not included: copying the PDF to its thread (a memcpy).",
    '',
    '| PDF | bytes | runs | CPU ms per PDF | wall ms per PDF | result |',
    '|---|---|---|---|---|---|',
    ...costs.map((c) => `| ${c.label} | ${c.bytes} | ${c.runs} | ${c.cpuMs.toFixed(1)} | ${c.wallMs.toFixed(1)} | ${c.verdict} |`),
    '',
  ];
}
