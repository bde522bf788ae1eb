// The checker thread's entry: one PDF in, its facts out, one at a time. The pool (checker-pool.ts)
// bounds this thread's time and memory and replaces it when it is terminated.
import { parentPort } from 'node:worker_threads';
import { inspectPdf } from './inspect.js';

const port = parentPort;
if (port === null) throw new Error('inspector-thread.ts runs only as a worker thread');

// A smallest one-page PDF: reading it once loads pdf.js's own worker code and warms both parsers,
// so that the pool's clock (started after "ready") measures the sender's PDF only.
const WARM_UP = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n' +
    '3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);
await inspectPdf(WARM_UP);
port.postMessage({ ready: true });
port.on('message', (message: unknown) => {
  const bytes: unknown = typeof message === 'object' && message !== null ? Reflect.get(message, 'bytes') : undefined;
  if (!(bytes instanceof Uint8Array)) throw new Error('the checker thread expects { bytes: Uint8Array }');
  // The bytes were moved here: they are this thread's alone, and pdf.js may take them (inspect.ts).
  void inspectPdf(bytes, { owned: true }).then((facts) => port.postMessage({ facts }));
});
