// A bare smtp-server on loopback that keeps each message exactly as its DATA stream gave it, and
// counts the bytes its sockets have read, so a client can wait until one write has been read on
// its own before it sends the next: the server then sees a read boundary exactly there.
import type { Socket } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** The text of the sink's reply to the end of DATA. */
export const KEPT_REPLY = 'kept by the segment sink';

export interface SegmentSink {
  readonly port: number;
  /** Each message's content as smtp-server delivered it to onData, in order. */
  readonly messages: Buffer[];
  /** Bytes read from all its sockets so far. */
  bytesRead(): number;
  /** Total bytes read at the end of each socket read, in order. */
  readonly readEnds: number[];
  /** Resolves once the sockets have read at least `total` bytes; rejects after `timeoutMs`. */
  readUpTo(total: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startSegmentSink(): Promise<SegmentSink> {
  const messages: Buffer[] = [];
  const readEnds: number[] = [];
  let read = 0;
  let waiters: { total: number; wake: () => void }[] = [];

  const server = new SMTPServer({
    disabledCommands: ['AUTH', 'STARTTLS'],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        messages.push(Buffer.concat(chunks));
        callback(null, KEPT_REPLY);
      });
    },
  });
  // smtp-server's own connection listener runs first and pipes the socket into its parser; this
  // one only counts what each read brought (the client sends nothing before the greeting).
  server.server.on('connection', (socket: Socket) => {
    socket.on('data', (chunk: Buffer) => {
      read += chunk.length;
      readEnds.push(read);
      const due = waiters.filter((w) => read >= w.total);
      waiters = waiters.filter((w) => read < w.total);
      for (const w of due) w.wake();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    port,
    messages,
    readEnds,
    bytesRead: () => read,
    readUpTo(total, timeoutMs = 5_000) {
      if (read >= total) return Promise.resolve();
      return new Promise<void>((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`sink read ${read} of ${total} bytes`)), timeoutMs);
        waiters.push({
          total,
          wake: () => {
            clearTimeout(timer);
            ok();
          },
        });
      });
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
