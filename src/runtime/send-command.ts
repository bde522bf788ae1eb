// `letter-intake send FILE.eml`: hands a message to a listener over SMTP and prints the reply.
// Envelope defaults come from the message (Return-Path, else From) and the configuration (the
// first processing address).
import { readFile } from 'node:fs/promises';
import { loadConfig } from '../config.js';
import { readPdf, sendPdfLetter } from './send-pdf.js';
import { sendOverSmtp } from './smtp-send.js';

const USAGE =
  'usage: letter-intake send FILE.eml [--from ADDR] [--to ADDR] [--host HOST] [--port PORT]\n       letter-intake send --pdf FILE.pdf [--subject S] [--body TEXT] [--to ADDR] [--host HOST] [--port PORT]';

export async function sendCommand(
  args: readonly string[],
  options: Readonly<Record<string, string | boolean | undefined>>,
): Promise<number> {
  const [file] = args;
  const option = (name: string): string | undefined => (typeof options[name] === 'string' ? options[name] : undefined);
  const pdfFile = option('pdf');
  if ((file === undefined) === (pdfFile === undefined)) {
    process.stderr.write(`${USAGE}\n`);
    return 64; // EX_USAGE
  }
  const port = portOption(option('port'));
  if (port === 'invalid') {
    process.stderr.write(`letter-intake send: --port must be a port number from 1 to 65535, not "${option('port') ?? ''}"\n${USAGE}\n`);
    return 64;
  }
  if (pdfFile !== undefined) return sendPdf(pdfFile, port, option);
  if (file === undefined) return 64; // one of the two, checked above
  const raw = await readMessage(file);
  if (typeof raw === 'string') {
    process.stderr.write(`letter-intake send: ${raw}\n`);
    return 66; // EX_NOINPUT
  }
  const config = loadConfig(process.env);
  const from = option('from') ?? headerAddress(raw, 'return-path') ?? headerAddress(raw, 'from') ?? '';
  const to = option('to') ?? config.inboundAddresses[0] ?? 'letters@intake.example';
  const host = option('host') ?? (config.smtp.host === '0.0.0.0' ? '127.0.0.1' : config.smtp.host);
  const reply = await sendOverSmtp({ host, port: port ?? config.smtp.port }, { envelope: { from, to: [to] }, raw });
  process.stdout.write(`${reply.text}\n`);
  return reply.accepted ? 0 : 1;
}

async function sendPdf(pdfFile: string, port: number | undefined, option: (name: string) => string | undefined): Promise<number> {
  const pdf = await readPdf(pdfFile);
  if (typeof pdf === 'string') {
    process.stderr.write(`letter-intake send: ${pdf}\n`);
    return 66; // EX_NOINPUT
  }
  const config = loadConfig(process.env);
  const reply = await sendPdfLetter(
    {
      host: option('host') ?? (config.smtp.host === '0.0.0.0' ? '127.0.0.1' : config.smtp.host),
      port: port ?? config.smtp.port,
      to: option('to') ?? config.inboundAddresses[0] ?? 'letters@intake.example',
      pdfFile,
      subject: option('subject'),
      body: option('body'),
    },
    pdf,
  );
  process.stdout.write(`${reply.text}\n`);
  return reply.accepted ? 0 : 1;
}

function headerAddress(raw: Buffer, field: string): string | undefined {
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  const line = new RegExp(`^${field}:(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head)?.[1];
  return line === undefined ? undefined : (/<([^<>\s]+@[^<>\s]+)>/.exec(line)?.[1] ?? /([^\s<>"]+@[^\s<>"]+)/.exec(line)?.[1]);
}

/** The --port option: absent, a port number, or invalid (never a silent fall-back to SMTP's 587). */
export function portOption(text: string | undefined): number | undefined | 'invalid' {
  if (text === undefined) return undefined;
  if (!/^\d{1,5}$/.test(text.trim())) return 'invalid';
  const port = Number(text);
  return port >= 1 && port <= 65_535 ? port : 'invalid';
}

/** The message's bytes, or a sentence saying why the file cannot be read. */
async function readMessage(file: string): Promise<Buffer | string> {
  try {
    return await readFile(file);
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? err.code : undefined;
    if (code === 'ENOENT') return `${file}: no such file`;
    if (code === 'EISDIR') return `${file}: is a directory, not a message`;
    if (code === 'EACCES') return `${file}: permission denied`;
    return `${file}: cannot be read (${err instanceof Error ? err.message : String(err)})`;
  }
}
