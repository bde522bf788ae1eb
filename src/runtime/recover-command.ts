// `letter-intake recover`: brings back, from the raw store's markers, every intake Redis lost
// (recover/recover.ts). Idempotent and safe while listeners and workers run; prints what it did
// per kind and names each intake whose message is missing. Exit 0 when nothing is missing.
import { IntakeMarkers } from '../intake/markers.js';
import { silentObserver } from '../intake/observer.js';
import { createIntakeQueue } from '../intake/queue.js';
import { NoticeLedger } from '../notices/ledger.js';
import { createNoticeQueue, noticesFor } from '../notices/queue.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { recoverIntakes } from '../recover/recover.js';
import { loadSenderDirectory } from '../senders/directory.js';
import { noticeLifetimeMs } from '../words/notice-lifetime.js';
import { commandRedisTopology, connectForCommand } from './command-redis.js';
import { roleContext } from './context.js';
import { storeFor } from './part-context.js';

const COMMAND_TIMEOUT_MS = 10_000;

export async function recoverCommand(): Promise<number> {
  const ctx = roleContext(process.env, 'letter-intake');
  const rawStore = await openCheckedRawStore(ctx.config, ctx.logger);
  const redis = await connectForCommand(commandRedisTopology(ctx.config), COMMAND_TIMEOUT_MS).catch((err: unknown) => {
    rawStore.close();
    throw err;
  });
  const queue = createIntakeQueue(redis, ctx.config.redisPrefix);
  // A restored ended intake's notice is queued again as the worker queues it, which needs the senders.
  const sendersFile = ctx.config.sendersFile;
  const noticeQueue = sendersFile === undefined ? undefined : createNoticeQueue(redis, ctx.config.redisPrefix);
  const notices =
    sendersFile === undefined || noticeQueue === undefined
      ? undefined
      : noticesFor({
          queue: noticeQueue,
          ledger: new NoticeLedger(redis, ctx.config.redisPrefix),
          directory: loadSenderDirectory(sendersFile, ctx.env),
          attempts: ctx.config.notices.attempts,
          clock: ctx.clock,
          logger: ctx.logger,
          observer: silentObserver,
        });
  try {
    const report = await recoverIntakes({
      store: storeFor({ config: ctx.config }, redis),
      queue,
      rawStore,
      markers: new IntakeMarkers(rawStore),
      clock: ctx.clock,
      attempts: ctx.config.worker.attempts,
      logger: ctx.logger,
      notices,
      ledger: new NoticeLedger(redis, ctx.config.redisPrefix),
      noticeLifetimeMs: noticeLifetimeMs(ctx.config.notices),
    });
    const c = report.counts;
    for (const id of report.missing) process.stdout.write(`intake ${id}: its raw message is missing; recorded failed RawMessageMissing\n`);
    process.stdout.write(
      `${c.keep} in Redis already, ${c.queue} queued, ${c['restore-ended']} ended restored, ${c['restore-failed']} failed restored, ` +
        `${c['fail-missing']} missing their message, ${c.raced} taken by another, ${c.expired} expired meanwhile, ${c.unreadable} unreadable, ` +
        `${c.error} failed (logged as recover.intake_failed; run it again)\n`,
    );
    if (c['restore-ended'] > 0 && notices === undefined) {
      process.stdout.write("without SENDERS_FILE the restored intakes' notices are not queued again\n");
    }
    return report.missing.length === 0 && c.unreadable === 0 && c.error === 0 ? 0 : 1;
  } finally {
    await queue.close();
    await noticeQueue?.close();
    redis.disconnect();
    rawStore.close();
  }
}
