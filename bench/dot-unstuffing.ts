// smtp-server's DATA parser alone (SMTPStream: dot-unstuffing and the end-of-data search), in this
// process, over the body of a 10 MB PDF as mail carries it: 13.7 MB of base64 in 76-character
// lines, fed in 64 KiB pieces as a socket reads them. Not part of `npm run bench`; run it as
// `npm exec -- tsx bench/dot-unstuffing.ts` against the library as installed (patches/ applied).
import { randomBytes } from 'node:crypto';
import { SMTPStream } from 'smtp-server/lib/smtp-stream.js';

const PDF_BYTES = 10_000_000;
const READ_BYTES = 64 * 1024;
const RUNS = 9;

function base64Body(bytes: number): Buffer {
  const lines = randomBytes(bytes)
    .toString('base64')
    .match(/.{1,76}/g);
  return Buffer.from(`${(lines ?? []).join('\r\n')}\r\n.\r\n`, 'latin1');
}

/** Milliseconds from the first piece written to the data stream's end. */
async function parseOnce(section: Buffer): Promise<number> {
  const parser = new SMTPStream();
  const data = parser.startDataMode();
  data.on('data', () => {});
  // smtp-server calls continue() once the message is handled; the last write completes after it
  const ended = new Promise<void>((ok) =>
    data.once('end', () => {
      parser.continue();
      ok();
    }),
  );
  const started = performance.now();
  for (let at = 0; at < section.length; at += READ_BYTES) {
    const piece = section.subarray(at, at + READ_BYTES);
    await new Promise<void>((ok, fail) => parser.write(piece, (err) => (err ? fail(err) : ok())));
  }
  await ended;
  return performance.now() - started;
}

async function main(): Promise<void> {
  const section = base64Body(PDF_BYTES);
  await parseOnce(section); // warm-up
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) times.push(await parseOnce(section));
  times.sort((a, b) => a - b);
  const median = times[Math.floor(RUNS / 2)] ?? 0;
  const mb = section.length / 1e6;
  process.stdout.write(
    `${mb.toFixed(1)} MB in ${READ_BYTES / 1024} KiB pieces: median ${median.toFixed(1)} ms ` +
      `(${(mb / (median / 1000)).toFixed(0)} MB/s), fastest ${times[0]?.toFixed(1)} ms, slowest ${times.at(-1)?.toFixed(1)} ms\n`,
  );
}

await main();
