// Replaces: a request body as one string or Buffer.
// Proved by: test/integration/sender-api-http-fetch.test.ts (sent by httpFetch and by the global fetch, byte for byte).
//
// A request body made of ASCII text pieces generated as they are sent, with its length known up
// front. It is a standard ReadableStream of bytes, so any fetch can send it (with `duplex:
// 'half'` and the length as `content-length`); httpFetch (http-fetch.ts) recognises it and writes
// the pieces to the socket as latin1 strings instead, without the web stream's copies.
export class AsciiPiecesBody extends ReadableStream<Uint8Array> {
  /** The pieces, once: a body is sent once, either as the stream or through its pieces. */
  readonly takePieces: () => Iterator<string>;

  /** `pieces` must give ASCII strings only, `byteLength` characters in all. */
  constructor(
    readonly byteLength: number,
    pieces: () => Iterable<string>,
  ) {
    const takePieces = once(pieces);
    let iterator: Iterator<string> | undefined;
    super(
      {
        pull: (controller) => {
          iterator ??= takePieces();
          const next = iterator.next();
          if (next.done === true) controller.close();
          else controller.enqueue(Buffer.from(next.value, 'latin1'));
        },
        cancel: () => {
          iterator?.return?.();
        },
      },
      // nothing is made before a reader asks (httpFetch never reads the stream)
      { highWaterMark: 0 },
    );
    this.takePieces = takePieces;
  }
}

function once(pieces: () => Iterable<string>): () => Iterator<string> {
  let taken = false;
  return () => {
    if (taken) throw new TypeError('the request body was already sent');
    taken = true;
    return pieces()[Symbol.iterator]();
  };
}
