// V8 sizes a heap's growth by its limit: a heap whose limit is under 2 GiB is treated as a small
// device's (it may grow by only 1.1–1.3× its live size before the next full collection). A PDF
// checker thread's limit is PDF_CHECK_MEMORY_MB (256 MB by default), so its heap was collected
// every few PDFs; the worker's own heap is collected as external memory churns (a 10 MB letter is
// ~40 MB of fresh buffers). Growing every heap of the worker process as a server's (4×, V8's own
// factor for large heaps) halves the worker's CPU per large letter (docs/design.md §18).
// The bound is unchanged: V8 still collects before it gives up at a thread's heap limit.
import { setFlagsFromString } from 'node:v8';

/** V8's growing factor for heaps of 2 GiB and more, as a percentage over the live size. */
export const SERVER_HEAP_GROWING_PERCENT = 300;

/** Process-wide (V8 flags are): call once, before the checker threads start. */
export function growHeapsAsAServer(): void {
  setFlagsFromString(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
}
