// The benchmark harness on a handful of messages (the `tiny` plan: 10 KB, 2 sessions): every
// process really starts (Redis, sandbox API, listener and worker from dist/, sink, generator),
// the sink and the gateway are driven, letters are created, and the report renders. It keeps
// `npm run bench` from rotting unnoticed; it measures nothing worth reading.
import { describe, expect, it } from 'vitest';
import { runBenchmark } from '../../bench/harness.js';
import { percentiles } from '../../bench/intake-times.js';
import { dotStuff } from '../../bench/messages.js';
import { paddedPdf } from '../../bench/padded-pdf.js';
import { PLANS } from '../../bench/plan.js';
import { renderReport } from '../../bench/report.js';

describe('the benchmark harness, tiny plan', () => {
  it('drives the sink and the gateway, creates letters and reports the figures', async () => {
    const lines: string[] = [];
    // the sink on the project's own smtp-server: the published copy would be installed from the registry
    // two listener processes: the bench counts the smtp role as its primary and both of them
    const result = await runBenchmark(PLANS.tiny, { log: (line) => lines.push(line), patchedSink: true, smtpProcesses: 2 });

    expect(result.accept).toHaveLength(1);
    const [cell] = result.accept;
    expect(cell?.sink.load.accepted).toBeGreaterThan(0);
    expect(cell?.gateway.load.accepted).toBeGreaterThan(0);
    expect(cell?.gateway.load.accepted).toBeLessThanOrEqual(PLANS.tiny.accept.maxMessages['10KB']);
    expect(cell?.gateway.load.replies).toEqual({ '250': cell?.gateway.load.accepted });
    expect(cell?.ratio).toBeCloseTo((cell?.gateway.load.acceptedPerSec ?? 0) / (cell?.sink.load.acceptedPerSec ?? 1), 6);
    expect(cell?.ratio).toBeGreaterThan(0);
    expect(result.meta.smtpProcesses).toBe(2);
    expect(cell?.gateway.usage.listener?.processes).toBe(2);
    expect(cell?.gateway.usage.listener?.peakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(cell?.gateway.usage.listener?.peakRootRssBytes).toBeGreaterThan(10 * 1024 * 1024);

    const fixed = result.runs.find((r) => r.kind === 'fixed');
    expect(fixed?.offeredPerSec).toBe(PLANS.tiny.fixedLoad?.ratePerSec['10KB']);
    expect(fixed?.load.accepted).toBeGreaterThan(0);
    expect(fixed?.e2e.letters).toBe(fixed?.load.accepted);
    expect(fixed?.e2e.notSubmitted).toEqual({});
    expect(fixed?.e2e.latencyMs.count).toBe(fixed?.load.accepted);
    expect(fixed?.e2e.lettersPerSec).toBeGreaterThan(0);
    // every letter took some time, and none longer than the plan waits for letters at all
    expect(fixed?.e2e.latencyMs.p50).toBeGreaterThan(0);
    expect(fixed?.e2e.latencyMs.max).toBeLessThan(PLANS.tiny.settleTimeoutMs);
    expect(fixed?.usage['worker-1']?.cpuSeconds).toBeGreaterThan(0);

    // the 10 KB accept goal is judged against the 15% from the cell's own figures;
    // the sizes and runs the tiny plan leaves out are reported as not measured, never as met
    const byName = (part: string) => result.goals.filter((g) => g.name.includes(part));
    const gatewayRate = cell?.gateway.load.acceptedPerSec ?? 0;
    const sinkRate = cell?.sink.load.acceptedPerSec ?? 0;
    expect(byName('Accept rate').map((g) => [g.name.match(/\d+[KM]B/)?.[0], g.met])).toEqual([
      ['10KB', gatewayRate / sinkRate >= 0.15],
      ['1MB', undefined],
      ['10MB', undefined],
    ]);
    expect(byName('Accept rate')[0]?.measured).toContain(`${gatewayRate.toFixed(1)} of ${sinkRate.toFixed(1)} msg/s`);
    expect(byName('RSS').map((g) => [g.measured, g.met])).toEqual([['not measured', undefined]]);
    expect(byName('End-to-end p99').map((g) => g.met)).toEqual([undefined, undefined]);
    expect(byName('worker processes').map((g) => g.measured)).toEqual(['not measured', 'not measured', 'not measured']);

    // numbers with and without sealing differ: the report says which the run had
    const sealed = process.env.RAW_STORE_KEY !== undefined;
    expect(result.meta.rawStoreSealed).toBe(sealed);
    const report = renderReport(result);
    expect(report).toContain(sealed ? 'raw store sealed (RAW_STORE_KEY)' : 'raw store as sent (no RAW_STORE_KEY)');
    expect(report).toContain('## Goals');
    expect(report).toContain('SMTP_PROCESSES 2: a primary and 2 listener processes on one port');
    expect(report).toMatch(/\| 10KB \| 2 \| reused \| \d+(\.\d+)? \| \d+(\.\d+)? \|/);
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
