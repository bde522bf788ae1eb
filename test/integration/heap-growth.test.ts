// The listener and the worker grow their heaps as a server's (src/fast-paths/heap-growth.ts): a thread with a
// checker's heap limit then collects its old generation far less often for the same work. This
// fails if V8 ignores the flag (a misspelt name, a V8 that dropped it): setFlagsFromString does
// not say so itself.
import { Worker } from 'node:worker_threads';
import { expect, it } from 'vitest';
import { growHeapsAsAServer } from '../../src/fast-paths/heap-growth.js';

// Large arrays (old space from birth), about 16 MB of them alive at a time, 480 MB made in all.
const CHURN = `
const { parentPort } = require('node:worker_threads');
const { PerformanceObserver, constants } = require('node:perf_hooks');
let major = 0;
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (entry.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) major += 1;
});
observer.observe({ entryTypes: ['gc'] });
const alive = [];
for (let i = 0; i < 3000; i += 1) {
  alive.push(new Array(20000).fill(i));
  if (alive.length > 100) alive.shift();
}
setTimeout(() => { observer.disconnect(); parentPort.postMessage(major); }, 50);
`;

/** Full collections in a fresh thread with the checker's default heap limit (PDF_CHECK_MEMORY_MB). */
function majorCollections(): Promise<number> {
  const thread = new Worker(CHURN, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 } });
  return new Promise<number>((resolve, reject) => {
    thread.once('message', (count: number) => resolve(count));
    thread.once('error', reject);
  }).finally(() => thread.terminate());
}

it('a thread with a checker heap limit collects its old generation less than half as often once heaps grow as a server’s', async () => {
  const before = await majorCollections();
  growHeapsAsAServer();
  const after = await majorCollections();
  expect(before).toBeGreaterThanOrEqual(8);
  expect(after).toBeLessThanOrEqual(before / 2);
}, 60_000);
