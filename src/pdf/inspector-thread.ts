// The checker thread's entry: one PDF in, its facts out, one at a time. The pool (checker-pool.ts)
// bounds this thread's time and memory and replaces it when it is terminated.
import { parentPort } from 'node:worker_threads';
import { inspectPdf } from './inspect.js';

const port = parentPort;
if (port === null) throw new Error('inspector-thread.ts runs only as a worker thread');

port.on('message', (message: unknown) => {
  const bytes: unknown = typeof message === 'object' && message !== null ? Reflect.get(message, 'bytes') : undefined;
  if (!(bytes instanceof Uint8Array)) throw new Error('the checker thread expects { bytes: Uint8Array }');
  void inspectPdf(bytes).then((facts) => port.postMessage({ facts }));
});
