// smtp-server's DATA parser as the project patches it (patches/smtp-server+*.patch) against the
// same version as published (installed into bench/.peers/smtp-server, as for the sink): random
// terminated DATA sections of dots, CR, LF, bare LF and command-like text, each cut into the
// same random writes for both, must give the same content and the same commands after the end.
// Run it after changing the patch: `npm exec -- tsx bench/dot-unstuffing-fuzz.ts [inputs]`.
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { installPublishedSmtpServer } from './peer-install.js';

interface StreamLike {
  oncommand: (command: Buffer, done?: () => void) => void;
  startDataMode(): NodeJS.ReadableStream;
  continue(): void;
  write(chunk: Buffer, done: () => void): boolean;
  end(): void;
}
type StreamClass = new () => StreamLike;

const ATOMS = ['.', '..', '\r\n', '\n', '\r', 'a', 'bc', 'QUIT', ' ', '\r\n.', '\r\n..', '\r\n.\r', '\n.', 'xyzw', '.\r\n', '-'];
const random = (n: number): number => Math.floor(Math.random() * n);

function section(): Buffer {
  let text = '';
  for (let n = random(40); n > 0; n -= 1) text += ATOMS[random(ATOMS.length)];
  if (Math.random() < 0.3) text += 'A'.repeat(random(200));
  return Buffer.from(`${text}\r\n.\r\n${Math.random() < 0.5 ? 'QUIT\r\n' : ''}`, 'latin1');
}

/** The content delivered and the commands seen after it, as one string. */
async function parse(Stream: StreamClass, input: Buffer, cuts: readonly number[]): Promise<string> {
  const stream = new Stream();
  const commands: string[] = [];
  const data: Buffer[] = [];
  stream.oncommand = (command, done) => {
    commands.push(command.toString('latin1'));
    done?.();
  };
  const content = stream.startDataMode();
  content.on('data', (chunk: Buffer) => data.push(Buffer.from(chunk)));
  content.on('end', () => setImmediate(() => stream.continue()));
  let from = 0;
  for (const cut of [...cuts, input.length]) {
    const piece = input.subarray(from, cut);
    from = cut;
    if (piece.length > 0) await new Promise<void>((resolve) => stream.write(piece, resolve));
  }
  stream.end();
  await new Promise((resolve) => setTimeout(resolve, 1));
  return `${Buffer.concat(data).toString('latin1')}|${commands.join(',')}`;
}

const published = await installPublishedSmtpServer((line) => console.error(line));
const load = async (file: string): Promise<StreamClass> => (await import(pathToFileURL(file).href)).SMTPStream;
const Pristine = await load(join(dirname(published), 'smtp-stream.js'));
const Patched = await load(join(import.meta.dirname, '..', 'node_modules', 'smtp-server', 'dist', 'esm', 'smtp-stream.js'));

const inputs = Number(process.argv[2] ?? 20_000);
let differences = 0;
for (let n = 0; n < inputs; n += 1) {
  const input = section();
  const cuts = [...new Set(Array.from({ length: random(14) }, () => random(input.length + 1)))].sort((a, b) => a - b);
  const [patched, pristine] = await Promise.all([parse(Patched, input, cuts), parse(Pristine, input, cuts)]);
  if (patched === pristine) continue;
  differences += 1;
  if (differences <= 5) console.log(JSON.stringify({ input: input.toString('latin1'), cuts, patched, pristine }));
}
console.log(`${inputs} DATA sections, ${differences} differences`);
process.exitCode = differences === 0 ? 0 : 1;
