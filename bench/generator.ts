// The load generator process (forked by the bench with an IPC channel). It builds each size's
// message once, then runs the load it is asked for and answers with the result. Copy numbers
// keep counting across runs, so every message it ever sends has its own Message-ID.
import type { GeneratorAnswer, GeneratorRequest } from './generator-protocol.js';
import { runLoad } from './load.js';
import { type BenchMessage, buildBenchMessage, type SizeName } from './messages.js';

const runId = process.env.BENCH_RUN_ID ?? String(Date.now());
const messages = new Map<SizeName, BenchMessage>();
let seq = 0;

async function messageFor(size: SizeName): Promise<BenchMessage> {
  const cached = messages.get(size);
  if (cached !== undefined) return cached;
  const built = await buildBenchMessage(size, runId);
  messages.set(size, built);
  return built;
}

async function handle(request: GeneratorRequest): Promise<GeneratorAnswer> {
  if (request.kind === 'prepare') {
    const built = await Promise.all(request.sizes.map(messageFor));
    return { kind: 'prepared', id: request.id, wireBytes: Object.fromEntries(built.map((m) => [m.size, m.wireBytes])) };
  }
  const message = await messageFor(request.spec.size);
  const result = await runLoad(request.spec, { message, nextSeq: () => (seq += 1), now: () => performance.now() });
  return { kind: 'result', id: request.id, result };
}

process.on('message', (request: GeneratorRequest) => {
  handle(request).then(
    (answer) => process.send?.(answer),
    (err: unknown) => process.send?.({ kind: 'error', id: request.id, message: err instanceof Error ? err.message : String(err) }),
  );
});
process.on('disconnect', () => process.exit(0));
