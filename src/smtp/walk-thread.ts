// The MIME walk thread: runs the listener's streaming walks (mime-walk.ts) off its event loop,
// so reading the structure of a 10 MB message costs the SMTP sessions nothing but a copy of
// the bytes. Every chunk is acknowledged once the walk took it (the listener's flow control).
import { parentPort } from 'node:worker_threads';
import { startMimeWalk, type MimeWalk } from './mime-walk.js';
import type { FromWalkThread, ToWalkThread } from './walk-protocol.js';

const port = parentPort;
if (port === null) throw new Error('walk-thread.ts runs as a worker thread only');
const walks = new Map<number, MimeWalk>();
const post = (message: FromWalkThread): void => port.postMessage(message);

port.on('message', (message: ToWalkThread) => {
  const { id } = message;
  switch (message.op) {
    case 'start': {
      const walk = startMimeWalk();
      walks.set(id, walk);
      walk.result.then(
        (result) => post(result.kind === 'walked' ? { op: 'walked', id, subject: result.subject, parts: result.parts } : { op: 'unparseable', id, why: result.why }),
        (err: unknown) => post({ op: 'failed', id, message: err instanceof Error ? err.message : String(err) }),
      ).finally(() => walks.delete(id));
      return;
    }
    case 'chunk': {
      const walk = walks.get(id);
      const bytes = message.chunk.byteLength;
      // a walk that already ended (the structure was refused) takes the rest unread
      if (walk === undefined) return post({ op: 'ack', id, bytes });
      walk.input.write(Buffer.from(message.chunk.buffer, message.chunk.byteOffset, bytes), () => post({ op: 'ack', id, bytes }));
      return;
    }
    case 'end':
      walks.get(id)?.input.end();
      return;
    case 'abort':
      walks.get(id)?.abort();
      walks.delete(id);
      return;
  }
});
