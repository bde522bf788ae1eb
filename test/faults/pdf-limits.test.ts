// Hostile PDFs against the checker's limits, in real threads: decompression bombs, deep nesting,
// huge object counts and a slow file each end within the limits as "too complex" or damaged
// (PdfDamaged), never a crash or a hang; a thread that dies for another reason is our fault
// (the promise rejects, the intake fails replayable) and the pool carries on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { growHeapsAsAServer } from '../../src/fast-paths/heap-growth.js';
import { createPdfChecker, type PdfChecker, PdfCheckerError } from '../../src/pdf/checker-pool.js';
import { judgePdf } from '../../src/pdf/judge.js';
import { deepNesting, hugeArray, manyObjects, metadataBomb, objectStreamBomb } from '../helpers/pdf-bombs.js';
import { letterPdf, statementPdf } from '../helpers/pdf-samples.js';

const TIMEOUT_MS = 20_000; // generous: this machine is shared; the slow-file case below uses its own
const MEMORY_MB = 128; // reached sooner than the default 256 MB: the bombs inflate far past either
const MiB = 1024 * 1024;

let checker: PdfChecker;
let letter: Buffer;

beforeAll(async () => {
  growHeapsAsAServer(); // as the worker process reads PDFs
  checker = createPdfChecker({ threads: 1, timeoutMs: TIMEOUT_MS, memoryMb: MEMORY_MB });
  letter = await letterPdf();
  await checker.inspect(letter);
}, 120_000);
afterAll(async () => {
  await checker.close();
});

const bombs: readonly [string, () => Buffer | Promise<Buffer>, RegExp][] = [
  ['an object stream that inflates to 1 GiB', () => objectStreamBomb(1024 * MiB), /too complex to check/],
  ['an XMP metadata stream that inflates to 1 GiB', () => metadataBomb(1024 * MiB), /too complex to check/],
  ['arrays nested 100,000 deep', () => deepNesting(100_000), /cannot be read as a PDF|too complex/],
  // 8 MB on the wire, hundreds of MB in the V8 heap as parsed objects (not ArrayBuffers)
  ['an array of 4 million numbers', () => hugeArray(4_000_000), /too complex to check/],
];

describe('hostile PDFs end within the limits', () => {
  it.each(bombs)(
    '%s is PdfDamaged, in bounded time, and the next letter is read normally',
    async (_name, build, sentence) => {
      const pdf = await build();
      expect(pdf.length).toBeLessThan(10 * MiB);
      const started = performance.now();
      const verdict = judgePdf(await checker.inspect(pdf), { allowForms: false }, '"bomb.pdf"');
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 2000);
      expect(verdict).toMatchObject({ ok: false, reasonCode: 'PdfDamaged', reason: expect.stringMatching(sentence) });
      expect(await checker.inspect(letter)).toMatchObject({ kind: 'opened', pages: 1 });
    },
    120_000,
  );
});

describe('large but valid', () => {
  it('a PDF whose reading comes near the memory bound is read, every time (garbage is collected, not counted)', async () => {
    // 1,000 pages of text under a 64 MB bound: read whole, its garbage is far past the bound,
    // what it keeps alive is not. A watch on the heap's size between collections judged it
    // "too complex" three times in four.
    const tight = createPdfChecker({ threads: 1, timeoutMs: TIMEOUT_MS, memoryMb: 64 });
    try {
      const pdf = await statementPdf(1000);
      for (let round = 0; round < 4; round += 1) {
        expect(await tight.inspect(pdf)).toMatchObject({ kind: 'opened', pages: 1000 });
      }
    } finally {
      await tight.close();
    }
  }, 120_000);

  it('120,000 objects referenced from the catalog are read within the limits and accepted', async () => {
    const pdf = manyObjects(120_000);
    expect(pdf.length).toBeLessThan(10 * MiB);
    const started = performance.now();
    expect(judgePdf(await checker.inspect(pdf), { allowForms: false }, '"many.pdf"')).toEqual({ ok: true });
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS);
  }, 120_000);
});

describe('the time limit', () => {
  it('a PDF that takes longer than PDF_CHECK_TIMEOUT_MS is too complex, and its thread is replaced', async () => {
    const quick = createPdfChecker({ threads: 1, timeoutMs: 300, memoryMb: MEMORY_MB });
    try {
      expect(await quick.inspect(letter)).toMatchObject({ kind: 'opened' });
      // An 8,000-page letter: every page is loaded and its annotations read, far past 300 ms
      // (1,500 pages took about 0.3 s on a quiet machine: too close to the limit to prove it).
      const long = await letterPdf(8000);
      expect(await quick.inspect(long)).toEqual({ kind: 'too-complex', limit: 'time' });
      expect(await quick.inspect(letter)).toMatchObject({ kind: 'opened', pages: 1 });
    } finally {
      await quick.close();
    }
  }, 120_000);
});

describe('a checker thread that dies for another reason', () => {
  it('rejects the check (an intake failure, replayable), never a verdict on the PDF', async () => {
    const broken = createPdfChecker({
      threads: 1,
      timeoutMs: TIMEOUT_MS,
      memoryMb: MEMORY_MB,
      threadEntry: new URL('../helpers/crashing-pdf-thread.mjs', import.meta.url),
    });
    try {
      await expect(broken.inspect(letter)).rejects.toThrow(PdfCheckerError);
      await expect(broken.inspect(letter)).rejects.toThrow(/exited \(code 3\)/);
    } finally {
      await broken.close();
    }
  }, 60_000);

  it('lets at most `threads` PDFs be read at once; the others wait their turn', async () => {
    const two = createPdfChecker({ threads: 2, timeoutMs: TIMEOUT_MS, memoryMb: MEMORY_MB });
    try {
      const results = await Promise.all(Array.from({ length: 5 }, () => two.inspect(letter)));
      expect(results.map((r) => r.kind)).toEqual(['opened', 'opened', 'opened', 'opened', 'opened']);
    } finally {
      await two.close();
    }
  }, 120_000);
});
