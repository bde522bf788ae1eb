// A minimal SMTP client for load generation: one command at a time (no PIPELINING), replies
// read as lines, message bytes written as pre-rendered Buffers (no per-message encoding).
import { connect, type Socket } from 'node:net';

export interface Reply {
  readonly code: number;
  /** The last line's text, without the code. */
  readonly text: string;
}

/** A command answered with another code than expected. */
export class SmtpReplyError extends Error {
  override readonly name = 'SmtpReplyError';

  constructor(
    command: string,
    readonly reply: Reply,
  ) {
    super(`${command}: ${reply.code} ${reply.text}`);
  }
}

export class SmtpClient {
  readonly #socket: Socket;
  #buffered = '';
  #lines: string[] = [];
  #waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void } | undefined;
  #failure: Error | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (err) => this.#fail(err));
    socket.on('close', () => this.#fail(new Error('connection closed')));
  }

  /** Connects, waits for the 220 greeting and says EHLO. */
  static async open(port: number, helo: string, host = '127.0.0.1'): Promise<SmtpClient> {
    const socket = connect({ port, host });
    const client = new SmtpClient(socket);
    const greeting = await client.#next();
    if (greeting.code !== 220) throw new Error(`greeting ${greeting.code} ${greeting.text}`);
    await client.command(`EHLO ${helo}`, 250);
    return client;
  }

  /** Sends one command and resolves with the reply; rejects unless its code is `expect`. */
  async command(line: string, expect: number): Promise<Reply> {
    this.#socket.write(`${line}\r\n`, 'latin1');
    const reply = await this.#next();
    if (reply.code !== expect) throw new SmtpReplyError(line.split(' ')[0] ?? line, reply);
    return reply;
  }

  /** One transaction; resolves with the reply to the end of data (any code). */
  async send(mailFrom: string, rcptTo: string, head: Buffer, tail: Buffer): Promise<Reply> {
    await this.command(`MAIL FROM:<${mailFrom}>`, 250);
    await this.command(`RCPT TO:<${rcptTo}>`, 250);
    await this.command('DATA', 354);
    this.#socket.cork();
    this.#socket.write(head);
    this.#socket.write(tail);
    this.#socket.uncork();
    return this.#next();
  }

  async quit(): Promise<void> {
    try {
      await this.command('QUIT', 221);
    } catch {
      // the server may close first
    }
    this.#socket.destroy();
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #next(): Promise<Reply> {
    const ready = this.#takeReply();
    if (ready !== undefined) return Promise.resolve(ready);
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
    });
  }

  #onData(chunk: Buffer): void {
    this.#buffered += chunk.toString('latin1');
    let eol = this.#buffered.indexOf('\n');
    while (eol !== -1) {
      this.#lines.push(this.#buffered.slice(0, eol).replace(/\r$/, ''));
      this.#buffered = this.#buffered.slice(eol + 1);
      eol = this.#buffered.indexOf('\n');
    }
    const waiting = this.#waiting;
    if (waiting === undefined) return;
    const reply = this.#takeReply();
    if (reply === undefined) return;
    this.#waiting = undefined;
    waiting.resolve(reply);
  }

  /** RFC 5321 §4.2.1: a reply ends with the line whose code is followed by a space. */
  #takeReply(): Reply | undefined {
    const last = this.#lines.findIndex((l) => /^\d{3}( |$)/.test(l));
    if (last === -1) return undefined;
    const line = this.#lines[last] ?? '';
    this.#lines = this.#lines.slice(last + 1);
    return { code: Number(line.slice(0, 3)), text: line.slice(4) };
  }

  #fail(err: Error): void {
    this.#failure ??= err;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(err);
  }
}
