// A small raw SMTP client for tests: it shows every reply exactly as the server wrote it
// (nodemailer hides some, and refuses client-side to send over the advertised SIZE).
import { connect, type Socket } from 'node:net';

export interface Reply {
  readonly code: number;
  /** The whole reply, lines joined with "\n", e.g. "250 2.0.0 queued as in…". */
  readonly text: string;
}

export class SmtpClient {
  private buffer = '';
  private waiting: ((reply: Reply) => void) | undefined;
  private readonly replies: Reply[] = [];
  private closed = false;

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => {
      this.closed = true;
      this.waiting?.({ code: 0, text: '(connection closed)' });
    });
    socket.on('error', () => {});
  }

  static async open(
    port: number,
    host = '127.0.0.1',
    localAddress?: string,
    proxyLine?: string,
  ): Promise<{ client: SmtpClient; greeting: Reply }> {
    const socket = connect({ port, host, ...(localAddress === undefined ? {} : { localAddress }) });
    await new Promise<void>((ok, fail) => {
      socket.once('connect', ok);
      socket.once('error', fail);
    });
    if (proxyLine !== undefined) socket.write(`${proxyLine}\r\n`); // PROXY protocol v1 header
    const client = new SmtpClient(socket);
    return { client, greeting: await client.read() };
  }

  /** Sends one command line and waits for its reply. */
  async command(line: string): Promise<Reply> {
    this.socket.write(`${line}\r\n`);
    return this.read();
  }

  /** DATA, then the message (dot-stuffed, CRLF line ends kept as given), then the final reply. */
  async data(message: Buffer): Promise<{ start: Reply; end: Reply }> {
    const start = await this.command('DATA');
    if (start.code !== 354) return { start, end: start };
    this.socket.write(dotStuff(message));
    this.socket.write(message.subarray(-2).toString('latin1') === '\r\n' ? '.\r\n' : '\r\n.\r\n');
    return { start, end: await this.read() };
  }

  /** EHLO, MAIL, RCPT, DATA for one message; returns the reply to each. */
  async send(message: {
    from: string;
    to: readonly string[];
    raw: Buffer;
    mailParams?: string;
    helo?: string;
  }): Promise<Record<string, Reply>> {
    const out: Record<string, Reply> = {};
    out.ehlo = await this.command(`EHLO ${message.helo ?? 'mta.acme.example'}`);
    out.mail = await this.command(`MAIL FROM:<${message.from}>${message.mailParams ? ` ${message.mailParams}` : ''}`);
    if (out.mail.code !== 250) return out;
    let anyRecipient = false;
    for (const [i, to] of message.to.entries()) {
      const reply = await this.command(`RCPT TO:<${to}>`);
      out[i === 0 ? 'rcpt' : `rcpt${i}`] = reply;
      anyRecipient ||= reply.code === 250;
    }
    if (!anyRecipient) return out;
    const { start, end } = await this.data(message.raw);
    out.dataStart = start;
    out.data = end;
    return out;
  }

  /** Raw bytes onto the wire (for partial DATA and protocol abuse). */
  write(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** Drops the connection without QUIT. */
  close(): void {
    this.socket.destroy();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async quit(): Promise<void> {
    if (!this.closed) {
      await this.command('QUIT').catch(() => undefined);
    }
    this.socket.destroy();
  }

  read(): Promise<Reply> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.closed) return Promise.resolve({ code: 0, text: '(connection closed)' });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (;;) {
      const lines = this.buffer.split('\r\n');
      // A reply ends at a line "NNN text" (space after the code); "NNN-text" continues.
      const endIndex = lines.findIndex((l, i) => i < lines.length - 1 && /^\d{3}(?: |$)/.test(l));
      if (endIndex === -1) return;
      const replyLines = lines.slice(0, endIndex + 1);
      this.buffer = lines.slice(endIndex + 1).join('\r\n');
      const reply = { code: Number(replyLines[endIndex]?.slice(0, 3)), text: replyLines.join('\n') };
      const waiter = this.waiting;
      this.waiting = undefined;
      if (waiter !== undefined) waiter(reply);
      else this.replies.push(reply);
    }
  }
}

/** RFC 5321 §4.5.2: a line starting with "." gets one more "."; bare LF lines become CRLF. */
export function dotStuff(message: Buffer): Buffer {
  const text = message.toString('latin1').replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
  return Buffer.from(text, 'latin1');
}

/** One message over a fresh connection. */
export async function sendOnce(port: number, message: Parameters<SmtpClient['send']>[0]): Promise<Record<string, Reply>> {
  const { client } = await SmtpClient.open(port);
  try {
    return await client.send(message);
  } finally {
    await client.quit();
  }
}
