// `letter-intake status ID [--json]` and `letter-intake replay ID`: an operator's view of one
// intake (status: a summary for people, the record itself with --json).

import { IntakeMarkers } from '../intake/markers.js';
import { createIntakeQueue } from '../intake/queue.js';
import { replayIntake } from '../intake/replay.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import type { RedisClient } from '../redis/connections.js';
import { commandRedisTopology, connectForCommand } from './command-redis.js';
import { roleContext } from './context.js';
import { storeFor } from './part-context.js';
import { searchEverywhere } from './status-search.js';
import { formatStatus } from './status-text.js';

/** The command line's options a command may read. */
export type CommandOptions = Readonly<Record<string, string | boolean | undefined>>;

export async function statusCommand(args: readonly string[], options: CommandOptions = {}): Promise<number> {
  return withStore(args, async ({ store, ctx, redis }, id) => {
    const record = await store.get(id);
    if (record !== undefined) {
      process.stdout.write(options.json === true ? `${JSON.stringify(record, null, 2)}\n` : formatStatus(record));
      return 0;
    }
    // Not an intake id: a Message-ID or From finds intakes, and refusals in the session.
    const found = await searchEverywhere({ store, ctx, redis }, id);
    process.stdout.write(options.json === true ? `${JSON.stringify(found.json, null, 2)}\n` : found.text);
    if (!found.any) process.stderr.write(`no intake ${id}\n`);
    return found.any ? 0 : 1;
  });
}

export async function replayCommand(args: readonly string[]): Promise<number> {
  return withStore(args, async ({ store, ctx, redis }, id) => {
    const queue = createIntakeQueue(redis, ctx.config.redisPrefix);
    // The raw store's `failed` end goes with the replay (docs/design.md §13).
    const rawStore = await openCheckedRawStore(ctx.config, ctx.logger);
    try {
      const markers = new IntakeMarkers(rawStore);
      const result = await replayIntake({ store, queue, clock: ctx.clock, attempts: ctx.config.worker.attempts, markers }, id);
      process.stdout.write(result.ok ? `intake ${id} queued again\n` : `refused: ${result.reason}\n`);
      return result.ok ? 0 : 1;
    } finally {
      await queue.close();
      rawStore.close();
    }
  });
}

/** An operator command waits this long for one Redis answer before it says so. */
const COMMAND_TIMEOUT_MS = 10_000;

async function withStore(
  args: readonly string[],
  run: (
    deps: { store: ReturnType<typeof storeFor>; ctx: ReturnType<typeof roleContext>; redis: RedisClient },
    id: string,
  ) => Promise<number>,
): Promise<number> {
  const [id] = args;
  if (id === undefined) {
    process.stderr.write('usage: letter-intake status ID [--json] | replay ID\n');
    return 64;
  }
  const ctx = roleContext(process.env, 'letter-intake');
  const redis = await connectForCommand(commandRedisTopology(ctx.config), COMMAND_TIMEOUT_MS);
  try {
    return await run({ store: storeFor({ config: ctx.config }, redis), ctx, redis }, id);
  } finally {
    redis.disconnect();
  }
}
