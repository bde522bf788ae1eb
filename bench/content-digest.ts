// In-process microbenchmark of the content digest on the listener's write path
// (src/intake/content-digest.ts): the bench message in 64 KiB writes through the digesting spool,
// against a bare sha256 over the same bytes (what the digest cost before it canonicalized the
// body). Median of 5 runs. `npx tsx bench/content-digest.ts [10KB|1MB|10MB]`
import { createHash } from 'node:crypto';
import { withContentDigest } from '../src/intake/content-digest.js';
import { headerBlockOf } from '../src/mime/header-block.js';
import { buildBenchMessage, isSizeName } from './messages.js';
import { median } from './stats.js';

const RUNS = 5;
const nullSpool = {
  write: () => undefined,
  finish: () => Promise.reject(new Error('not used')),
  discard: () => Promise.resolve(),
  buffered: 0,
};

function timed(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const size = process.argv[2] ?? '10MB';
  if (!isSizeName(size)) throw new Error(`unknown size ${size}`);
  const bench = await buildBenchMessage(size, 'digest');
  const raw = Buffer.concat([bench.head(0), bench.tail.subarray(0, -3)]);
  const headerBlock = headerBlockOf(bench.head(0)); // the listener reads it from the kept head, not the whole message
  const chunks = Array.from({ length: Math.ceil(raw.length / 65536) }, (_, i) => raw.subarray(i * 65536, (i + 1) * 65536));
  const ways: [string, () => void][] = [
    [
      'sha256 of the bytes',
      () => {
        const hash = createHash('sha256');
        for (const chunk of chunks) hash.update(chunk);
        hash.digest('hex');
      },
    ],
    [
      'content digest (relaxed body + identity fields)',
      () => {
        const { spool, digest } = withContentDigest(nullSpool);
        for (const chunk of chunks) void spool.write(chunk);
        digest(headerBlock);
      },
    ],
  ];
  process.stdout.write(`${size}: ${raw.length} bytes in 64 KiB writes, median of ${RUNS} runs\n`);
  for (const [way, work] of ways) {
    work(); // warm-up
    const times = Array.from({ length: RUNS }, () => timed(work));
    process.stdout.write(`  ${way}: ${median(times).toFixed(1)} ms\n`);
  }
}

await main();
