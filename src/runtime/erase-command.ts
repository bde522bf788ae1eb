// `letter-intake erase ID --reason TEXT [--by NAME] [--force]` and `erase --sender ID --before
// DATE --reason TEXT`: erases intakes' personal data (intake/erase.ts), prints what went, and says
// that the letter the Sender API made is not the gateway's to erase. Exit 0 when all were erased.
import { hostname, userInfo } from 'node:os';
import { type EraseResult, eraseIntake } from '../intake/erase.js';
import { intakeKeys } from '../intake/keys.js';
import { createIntakeQueue } from '../intake/queue.js';
import { INTAKE_STATES } from '../intake/record.js';
import { createLogger } from '../log.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { commandRedisTopology, connectForCommand } from './command-redis.js';
import { roleContext } from './context.js';
import { storeFor } from './part-context.js';

const COMMAND_TIMEOUT_MS = 10_000;
const USAGE = 'usage: letter-intake erase ID --reason TEXT [--by NAME] [--force] | erase --sender ID --before YYYY-MM-DD --reason TEXT';

type Options = Readonly<Record<string, string | boolean | undefined>>;

export async function eraseCommand(args: readonly string[], options: Options = {}): Promise<number> {
  const reason = typeof options.reason === 'string' ? options.reason.trim() : '';
  const sender = typeof options.sender === 'string' ? options.sender : undefined;
  const before = typeof options.before === 'string' ? Date.parse(options.before) : undefined;
  const [id] = args;
  if (
    reason === '' ||
    (id === undefined) === (sender === undefined) ||
    (sender !== undefined && (before === undefined || Number.isNaN(before)))
  ) {
    process.stderr.write(`${USAGE}\n`);
    return 64;
  }
  const by = typeof options.by === 'string' ? options.by : `${userInfo().username}@${hostname()}`;
  const ctx = roleContext(process.env, 'letter-intake');
  const rawStore = await openCheckedRawStore(ctx.config);
  const redis = await connectForCommand(commandRedisTopology(ctx.config), COMMAND_TIMEOUT_MS).catch((err: unknown) => {
    rawStore.close();
    throw err;
  });
  const queue = createIntakeQueue(redis, ctx.config.redisPrefix);
  try {
    const store = storeFor({ config: ctx.config }, redis);
    const deps = {
      redis,
      prefix: ctx.config.redisPrefix,
      store,
      rawStore,
      queue,
      clock: ctx.clock,
      logger: createLogger({ level: 'info' }),
    };
    const ids = id !== undefined ? [id] : await senderIntakes(deps, sender ?? '', before ?? 0);
    let refused = 0;
    for (const intakeId of ids) {
      const result = await eraseIntake(deps, intakeId, { reason, by, force: options.force === true });
      process.stdout.write(describe(result));
      if (result.kind !== 'erased') refused++;
    }
    if (ids.length === 0) process.stdout.write(`no intake of sender ${sender ?? ''} received before ${options.before}\n`);
    return refused === 0 ? 0 : 1;
  } finally {
    await queue.close();
    redis.disconnect();
    rawStore.close();
  }
}

function describe(result: EraseResult): string {
  switch (result.kind) {
    case 'unknown':
      return `no intake ${result.intakeId}\n`;
    case 'in-flight':
      return `refused: intake ${result.intakeId} is ${result.state} (still in flight); wait for it to end, or erase with --force\n`;
    case 'erased': {
      const letter =
        result.letterId === undefined
          ? ''
          : `  not erased: letter ${result.letterId} in the Sender API is the API operator's to erase (ask them)\n`;
      return `intake ${result.intakeId} erased:\n${result.removed.map((r) => `  removed ${r}\n`).join('')}${letter}`;
    }
  }
}

/** The intakes of one sender received before a time, from the state indexes. */
async function senderIntakes(
  deps: { redis: import('../redis/connections.js').RedisClient; prefix: string; store: ReturnType<typeof storeFor> },
  senderId: string,
  before: number,
): Promise<string[]> {
  const keys = intakeKeys(deps.prefix);
  const ids = new Set<string>();
  for (const state of INTAKE_STATES) for (const id of await deps.redis.zrange(keys.stateIndex(state), '0', '-1')) ids.add(id);
  const found: string[] = [];
  for (const id of ids) {
    const record = await deps.store.get(id);
    if (record !== undefined && record.senderId === senderId && record.receivedAt < before && record.erasedAt === undefined) found.push(id);
  }
  return found;
}
