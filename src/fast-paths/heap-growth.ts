// Replaces: V8's default heap growing factor (a run-time V8 flag).
// Proved by: test/integration/heap-growth.test.ts (V8 takes the flag: fewer full collections for the same work).
//
// V8 lets a heap grow past its live size by a factor it takes from the heap's limit: 4× for a
// limit of 2 GiB and more, 1.1–1.3× below, as on a small device. A PDF checker thread's limit is
// PDF_CHECK_MEMORY_MB (256 MB), so V8 collected it in full every few PDFs; the listener's and the
// worker's own heaps were collected in full as fresh buffers (megabytes per message) churned.
// Every heap of a gateway process grows as a server's instead (docs/design.md §16). Bounds are
// unchanged: a thread's limit is still V8's own, which collects before it gives up, and the
// listener's buffers are still reserved from its memory budget.
import { setFlagsFromString } from 'node:v8';

/** V8's growing factor for heaps of 2 GiB and more, as a percentage over the live size. */
export const SERVER_HEAP_GROWING_PERCENT = 300;

/** Process-wide (V8 flags are), idempotent: called where the listener and worker parts start. */
export function growHeapsAsAServer(): void {
  setFlagsFromString(`--heap-growing-percent=${SERVER_HEAP_GROWING_PERCENT}`);
}
