// A PDF check past its wall-clock limit while other checks ran beside it is not the sender's
// fault until proven: the pool checks it again alone (no other check runs in the process
// meanwhile), with twice the limit, within the same job run (no attempt spent); only a second
// overrun is "too complex". A check that ran alone gets no second chance, and while one re-check
// waits or runs a further one is deferred (PdfRecheckLater), not queued.
// The checker threads here take as long as their input says (test/helpers/slow-pdf-thread.mjs).
import { afterEach, describe, expect, it } from 'vitest';
import { createPdfChecker, type PdfChecker, PdfRecheckLater } from '../../src/pdf/checker-pool.js';
import type { PdfFacts } from '../../src/pdf/facts.js';

const LIMIT_MS = 1000;
const SLOW_THREAD = new URL('../helpers/slow-pdf-thread.mjs', import.meta.url);
let checker: PdfChecker | undefined;
afterEach(async () => {
  await checker?.close();
});

const pdf = (label: string, waitMs: number): Uint8Array => Buffer.from(`%PDF-1.4 ${label} wait ${waitMs}`, 'latin1');

interface Span {
  readonly label: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

function spanOf(facts: PdfFacts): Span {
  if (facts.kind !== 'opened') throw new Error(`expected an opened PDF, got ${facts.kind}`);
  return {
    label: String(facts.producer),
    startedAt: Number(Reflect.get(facts, 'startedAt')),
    endedAt: Number(Reflect.get(facts, 'endedAt')),
  };
}

describe('a PDF check past its wall-clock limit', () => {
  it('is checked again alone with twice the limit, and passes when it ends within it', async () => {
    const pool = createPdfChecker({ threads: 2, timeoutMs: LIMIT_MS, memoryMb: 64, threadEntry: SLOW_THREAD });
    checker = pool;
    await pool.warm();
    const slow = pool.inspect(pdf('slow', 1.5 * LIMIT_MS));
    // Others keep arriving while it runs, is cut off, and runs again.
    const others: Promise<PdfFacts>[] = [];
    for (let i = 0; i < 6; i += 1) {
      others.push(pool.inspect(pdf(`other-${i}`, 200)));
      await new Promise((r) => setTimeout(r, 300));
    }
    const again = spanOf(await slow);
    expect(again.endedAt - again.startedAt).toBeGreaterThanOrEqual(1.5 * LIMIT_MS - 50); // the whole wait: the second run
    for (const other of await Promise.all(others)) {
      const span = spanOf(other);
      const overlaps = span.startedAt < again.endedAt && again.startedAt < span.endedAt;
      expect(overlaps, `${span.label} ran during the re-check`).toBe(false);
    }
  });

  it('is too complex only when it overruns the second time too', async () => {
    const pool = createPdfChecker({ threads: 2, timeoutMs: LIMIT_MS, memoryMb: 64, threadEntry: SLOW_THREAD });
    checker = pool;
    await pool.warm();
    const started = performance.now();
    const endless = pool.inspect(pdf('endless', 60_000));
    const beside = pool.inspect(pdf('beside', 500)); // runs during the first run
    expect(await endless).toEqual({ kind: 'too-complex', limit: 'time' });
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * LIMIT_MS - 50); // the limit, then twice it
    expect(spanOf(await beside).label).toContain('beside');
    const next = spanOf(await pool.inspect(pdf('next', 10))); // the pool works on afterwards
    expect(next.label).toContain('next');
  });

  it('is too complex at once when nothing else ran beside it', async () => {
    const limitMs = 2 * LIMIT_MS; // room for a loaded host's delays below what a second chance would take
    const pool = createPdfChecker({ threads: 2, timeoutMs: limitMs, memoryMb: 64, threadEntry: SLOW_THREAD });
    checker = pool;
    await pool.warm();
    const started = performance.now();
    expect(await pool.inspect(pdf('endless alone', 60_000))).toEqual({ kind: 'too-complex', limit: 'time' });
    expect(performance.now() - started).toBeLessThan(3 * limitMs - 50); // a second chance would take the limit, then twice it
  });

  it('defers a further second chance while one is waiting or running, and the pool works on', async () => {
    const pool = createPdfChecker({ threads: 2, timeoutMs: LIMIT_MS, memoryMb: 64, threadEntry: SLOW_THREAD });
    checker = pool;
    await pool.warm();
    // Both overrun side by side: one gets the pool's single re-check, the other is told to come back.
    const outcomes = await Promise.allSettled([pool.inspect(pdf('first', 60_000)), pool.inspect(pdf('second', 60_000))]);
    const checked = outcomes.filter((o) => o.status === 'fulfilled').map((o) => o.value);
    const deferred = outcomes.filter((o) => o.status === 'rejected').map((o): unknown => o.reason);
    expect(checked).toEqual([{ kind: 'too-complex', limit: 'time' }]);
    expect(deferred).toHaveLength(1);
    expect(deferred[0]).toBeInstanceOf(PdfRecheckLater);
    expect(deferred[0]).toMatchObject({ retryInMs: 2 * LIMIT_MS });
    const next = spanOf(await pool.inspect(pdf('next', 10)));
    expect(next.label).toContain('next');
  });
});
