// In-process microbenchmark of mailsplit's body fast path (patches/@zone-eu+mailsplit+5.4.19.patch):
// the 10 MB bench message split with the fast path off and on, the way the worker does (one
// write of the whole message) and the way the listener does (64 KiB writes). Median of 5 runs.
// `npx tsx bench/split-fast-path.ts [10KB|1MB|10MB]`
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Splitter } from '@zone-eu/mailsplit';
import { buildBenchMessage, isSizeName } from './messages.js';
import { median } from './stats.js';

const RUNS = 5;

async function splitOnce(chunks: readonly Buffer[]): Promise<number> {
  const started = performance.now();
  await pipeline(Readable.from(chunks), new Splitter(), async (items: AsyncIterable<unknown>) => {
    for await (const _ of items) {
      // drained only: the splitter's own cost is measured
    }
  });
  return performance.now() - started;
}

async function main(): Promise<void> {
  const size = process.argv[2] ?? '10MB';
  if (!isSizeName(size)) throw new Error(`unknown size ${size}`);
  const bench = await buildBenchMessage(size, 'split');
  // the message as the listener receives it: head + tail without the final "." line (the bench
  // body has no line starting with ".", so the tail carries no dot-stuffing)
  const raw = Buffer.concat([bench.head(0), bench.tail.subarray(0, -3)]);
  const ways: [string, Buffer[]][] = [
    ['whole (worker)', [raw]],
    ['64 KiB writes (listener)', Array.from({ length: Math.ceil(raw.length / 65536) }, (_, i) => raw.subarray(i * 65536, (i + 1) * 65536))],
  ];
  process.stdout.write(`${size}: ${raw.length} bytes, median of ${RUNS} runs\n`);
  for (const [way, chunks] of ways) {
    const result: string[] = [];
    for (const fast of [false, true]) {
      Splitter.bodyFastPath = fast;
      await splitOnce(chunks); // warm-up
      const times: number[] = [];
      for (let run = 0; run < RUNS; run += 1) times.push(await splitOnce(chunks));
      result.push(`${fast ? 'fast path' : 'line by line'} ${median(times).toFixed(1)} ms`);
    }
    process.stdout.write(`  ${way}: ${result.join(', ')}\n`);
  }
}

await main();
