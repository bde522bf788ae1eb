// A client's FIN ends only its direction (RFC 793 half-close): a pipelining client may send
// `.` and `QUIT` in one write and shut its side at once (RFC 2920 lets it read both replies
// after; Exim does this when relaying through a smarthost). The listener's sockets are
// half-open (allowHalfOpen), so every pipelined command is still answered; this closes the
// connection once the last of them is, since without a QUIT nothing else would before the
// idle timeout.

import type { Readable, Writable } from 'node:stream';

/** The part of smtp-server's connection this uses (private in smtp-server, typed by its d.ts). */
interface HalfClosable {
  readonly _socket: Readable;
  readonly _parser: Writable | false;
  readonly _closing: boolean;
  close(): void;
}

/** Closes `connection` once the commands its client sent before its FIN are all answered. */
export function closeAfterClientFin(connection: HalfClosable): void {
  connection._socket.once('end', () => {
    const closeIfOpen = (): void => {
      if (!connection._closing) connection.close();
    };
    // The socket's pipe ends the parser after this listener: it finishes once every command
    // written to it (the DATA's reply included) has been handled.
    const parser = connection._parser;
    if (parser === false || parser.writableFinished) closeIfOpen();
    else parser.once('finish', closeIfOpen);
  });
}
