// `letter-intake send FILE.eml`: hands a message to a listener over SMTP and prints the reply.
// Envelope defaults come from the message (Return-Path, else From) and the configuration (the
// first processing address).
import { readFile } from 'node:fs/promises';
import { createTransport } from 'nodemailer';
import { loadConfig } from '../config.js';

export async function sendCommand(args: readonly string[], options: Record<string, string | undefined>): Promise<number> {
  const [file] = args;
  if (file === undefined) {
    process.stderr.write('usage: letter-intake send FILE.eml [--from ADDR] [--to ADDR] [--host HOST] [--port PORT]\n');
    return 64;
  }
  const config = loadConfig(process.env);
  const raw = await readFile(file);
  const from = options.from ?? headerAddress(raw, 'return-path') ?? headerAddress(raw, 'from') ?? '';
  const to = options.to ?? config.inboundAddresses[0] ?? 'letters@intake.example';
  const host = options.host ?? (config.smtp.host === '0.0.0.0' ? '127.0.0.1' : config.smtp.host);
  const port = Number(options.port ?? config.smtp.port);
  const reply = await sendRaw({ host, port, from, to, raw });
  process.stdout.write(`${reply.text}\n`);
  return reply.accepted ? 0 : 1;
}

interface SendResult {
  readonly accepted: boolean;
  /** The server's final reply line, e.g. "250 2.0.0 queued as in…". */
  readonly text: string;
}

async function sendRaw(message: { host: string; port: number; from: string; to: string; raw: Buffer }): Promise<SendResult> {
  const transport = createTransport({ host: message.host, port: message.port, secure: false, ignoreTLS: true, name: 'letter-intake-send' });
  try {
    const info = await transport.sendMail({ envelope: { from: message.from, to: [message.to] }, raw: message.raw });
    return { accepted: true, text: info.response };
  } catch (err) {
    const response = err instanceof Error && 'response' in err && typeof err.response === 'string' ? err.response : undefined;
    return { accepted: false, text: response ?? (err instanceof Error ? err.message : String(err)) };
  } finally {
    transport.close();
  }
}

function headerAddress(raw: Buffer, field: string): string | undefined {
  const head = raw.subarray(0, 64 * 1024).toString('latin1');
  const line = new RegExp(`^${field}:(.*(?:\\r?\\n[ \\t].*)*)`, 'im').exec(head)?.[1];
  return line === undefined ? undefined : (/<([^<>\s]+@[^<>\s]+)>/.exec(line)?.[1] ?? /([^\s<>"]+@[^\s<>"]+)/.exec(line)?.[1]);
}
