// A checker thread that takes as long as its "PDF" says ("wait 1500" waits 1.5 s, without using
// the CPU) and reports when it started and ended, for tests of the pool's wall-clock limit.
import { parentPort } from 'node:worker_threads';

parentPort?.postMessage({ ready: true });
parentPort?.on('message', (message) => {
  const text = Buffer.from(message.bytes).toString('latin1');
  const waitMs = Number(/wait (\d+)/.exec(text)?.[1] ?? 0);
  const startedAt = Date.now();
  setTimeout(() => {
    const facts = {
      kind: 'opened',
      pages: 1,
      version: '1.4',
      producer: text,
      encrypted: false,
      javascript: [],
      launch: [],
      embeddedFiles: [],
      xfa: false,
      formFields: false,
      structureWalked: true,
      startedAt,
      endedAt: Date.now(),
    };
    parentPort?.postMessage({ facts });
  }, waitMs);
});
