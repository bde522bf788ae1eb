// The benchmark harness on a handful of messages (the `tiny` plan: 10 KB, 2 sessions): every
// process really starts (Redis, sandbox API, listener and worker from dist/, sink, generator),
// the sink and the gateway are driven, letters are created, and the report renders. It keeps
// `npm run bench` from rotting unnoticed; it measures nothing worth reading.
import { describe, expect, it } from 'vitest';
import { runBenchmark } from '../../bench/harness.js';
import { dotStuff } from '../../bench/messages.js';
import { paddedPdf } from '../../bench/padded-pdf.js';
import { PLANS } from '../../bench/plan.js';
import { renderReport } from '../../bench/report.js';
import { percentiles } from '../../bench/intake-times.js';

describe('the benchmark harness, tiny plan', () => {
  it('drives the sink and the gateway, creates letters and reports the figures', async () => {
    const lines: string[] = [];
    const result = await runBenchmark(PLANS.tiny, { log: (line) => lines.push(line) });

    expect(result.accept).toHaveLength(1);
    const [cell] = result.accept;
    expect(cell?.sink.load.accepted).toBeGreaterThan(0);
    expect(cell?.gateway.load.accepted).toBeGreaterThan(0);
    expect(cell?.gateway.load.replies).toEqual({ '250': cell?.gateway.load.accepted });
    expect(cell?.ratio).toBeCloseTo((cell?.gateway.load.acceptedPerSec ?? 0) / (cell?.sink.load.acceptedPerSec ?? 1), 6);
    expect(cell?.ratio).toBeGreaterThan(0);
    expect(cell?.gateway.usage['listener']?.peakRssBytes).toBeGreaterThan(10 * 1024 * 1024);

    const fixed = result.runs.find((r) => r.kind === 'fixed');
    expect(fixed?.load.accepted).toBeGreaterThan(0);
    expect(fixed?.e2e.letters).toBe(fixed?.load.accepted);
    expect(fixed?.e2e.lettersPerSec).toBeGreaterThan(0);
    expect(fixed?.e2e.latencyMs.p50).toBeLessThanOrEqual(fixed?.e2e.latencyMs.max ?? -1);
    expect(fixed?.usage['worker-1']?.cpuSeconds).toBeGreaterThan(0);

    const acceptGoal = result.goals.find((g) => g.name.includes('Accept rate') && g.name.includes('10KB'));
    expect(typeof acceptGoal?.met).toBe('boolean');
    expect(result.goals.find((g) => g.name.includes('RSS'))?.met).toBeUndefined(); // no 10 MB run in this plan

    const report = renderReport(result);
    expect(report).toContain('## Goals');
    expect(report).toMatch(/\| 10KB \| 2 \| reused \| \d+ \| \d+/);
  });
});

describe('the benchmark messages', () => {
  it('pads a PDF to the exact size asked for, still starting with %PDF- and ending with %%EOF', () => {
    const pdf = paddedPdf(123_457);
    expect(pdf.length).toBe(123_457);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdf.subarray(-6).toString('latin1')).toBe('%%EOF\n');
  });

  it('dot-stuffs lines that start with a dot and ends the data in CRLF', () => {
    expect(dotStuff(Buffer.from('.a\r\nb\r\n..c')).toString('latin1')).toBe('..a\r\nb\r\n...c\r\n');
  });

  it('takes nearest-rank percentiles', () => {
    expect(percentiles([5, 1, 4, 2, 3])).toEqual({ count: 5, p50: 3, p95: 5, p99: 5, max: 5 });
  });
});
