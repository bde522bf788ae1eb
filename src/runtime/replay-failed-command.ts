// `letter-intake replay-failed [--error-code CODE] [--since TIME] [--until TIME] [--sender ID|ADDRESS]`:
// every failed intake that matches goes back to the queue (intake/bulk-replay.ts); prints what
// was queued and what was refused. Without any option it replays every failed intake.
import { parseReplayFilter, replayFailed } from '../intake/bulk-replay.js';
import { IntakeMarkers } from '../intake/markers.js';
import { createIntakeQueue } from '../intake/queue.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import type { RawStore } from '../raw-store/raw-store.js';
import { commandRedisTopology, connectForCommand } from './command-redis.js';
import { roleContext } from './context.js';
import type { CommandOptions } from './intake-commands.js';
import { storeFor } from './part-context.js';

const COMMAND_TIMEOUT_MS = 10_000;

export async function replayFailedCommand(_args: readonly string[], options: CommandOptions = {}): Promise<number> {
  const text = (name: string): string | undefined => (typeof options[name] === 'string' ? options[name] : undefined);
  const parsed = parseReplayFilter({
    errorCode: text('error-code'),
    since: text('since'),
    until: text('until'),
    sender: text('sender'),
  });
  if (!parsed.ok) {
    process.stderr.write(`letter-intake replay-failed: ${parsed.error}\n`);
    return 64; // EX_USAGE
  }
  const ctx = roleContext(process.env, 'letter-intake');
  const redis = await connectForCommand(commandRedisTopology(ctx.config), COMMAND_TIMEOUT_MS);
  const queue = createIntakeQueue(redis, ctx.config.redisPrefix);
  let rawStore: RawStore | undefined;
  try {
    // The raw store's `failed` ends go with the replays (docs/design.md §13).
    rawStore = await openCheckedRawStore(ctx.config, ctx.logger);
    const markers = new IntakeMarkers(rawStore);
    const store = storeFor({ config: ctx.config }, redis);
    const result = await replayFailed({ store, queue, clock: ctx.clock, attempts: ctx.config.worker.attempts, markers }, parsed.filter);
    for (const id of result.replayed) process.stdout.write(`intake ${id} queued again\n`);
    for (const r of result.refused) process.stdout.write(`refused ${r.intakeId}: ${r.reason}\n`);
    process.stdout.write(
      `${result.replayed.length} queued again, ${result.refused.length} refused${result.more ? '; more match: run it again' : ''}\n`,
    );
    return result.refused.length === 0 ? 0 : 1;
  } finally {
    await queue.close();
    rawStore?.close();
    redis.disconnect();
  }
}
