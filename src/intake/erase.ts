// Erasing one intake's personal data on request (docs/operating.md, "Erasing an intake"). The
// tombstone comes first, in Redis and in the raw store (`erased/<id>`), so that a stop half-way,
// a re-delivery of the message (refused 550) and `recover` all find it; then the raw mail, the
// markers, the finished job's data, the search index entries, the session refusals of that message
// and every personal field of the record (its earlier runs included) go. The tombstone holds no
// personal data: when, why, by whom. The letter the Sender API made is the API operator's to erase.
import type { Queue } from 'bullmq';
import type { Logger } from '../log.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import { intakeKeys } from './keys.js';
import type { IntakeRecord } from './record.js';
import { normalizeMessageId } from './search-index.js';
import type { IntakeStore } from './store.js';

export interface Erasure {
  readonly at: number;
  readonly reason: string;
  readonly by: string;
}

export interface EraseDeps {
  readonly redis: RedisClient;
  readonly prefix: string;
  readonly store: IntakeStore;
  readonly rawStore: RawStore;
  readonly queue: Queue;
  readonly clock: () => number;
  readonly logger: Logger;
}

export type EraseResult =
  | { readonly kind: 'erased'; readonly intakeId: string; readonly removed: readonly string[]; readonly letterId: string | undefined }
  | { readonly kind: 'in-flight'; readonly intakeId: string; readonly state: string }
  | { readonly kind: 'unknown'; readonly intakeId: string };

export const erasedKey = (prefix: string, intakeId: string): string => intakeKeys(prefix).erased(intakeId);

/** The erasure of a message's intake, if it was erased: a re-delivery is refused with it. */
export async function erasureOf(redis: RedisClient, prefix: string, intakeId: string): Promise<Erasure | undefined> {
  const text = await redis.get(erasedKey(prefix, intakeId));
  return text === null ? undefined : (JSON.parse(text) as Erasure);
}

const IN_FLIGHT = new Set(['received', 'queued', 'processing']);

/** The record's fields that name a person or what they wrote, and what each becomes. */
function scrubbedFields(record: IntakeRecord): Record<string, string> {
  return {
    envelopeFrom: '',
    envelopeTo: '[]',
    helo: '',
    clientIp: '',
    from: '',
    subject: '',
    messageId: '',
    auth: '{}',
    reason: record.reasonCode ?? record.errorCode ?? '',
    ...(record.pdfs === undefined
      ? {}
      : { pdfs: JSON.stringify(record.pdfs.map((p, i) => ({ ...p, fileName: `letter-${i + 1}.pdf`, producer: undefined }))) }),
    ...(record.ignoredAttachments === undefined ? {} : { ignoredAttachments: '[]' }),
    ...(record.earlierRuns === undefined
      ? {}
      : { earlierRuns: JSON.stringify(record.earlierRuns.map((r) => ({ ...r, reason: undefined }))) }),
  };
}

export async function eraseIntake(
  deps: EraseDeps,
  intakeId: string,
  request: { readonly reason: string; readonly by: string; readonly force: boolean },
): Promise<EraseResult> {
  const record = await deps.store.get(intakeId);
  const accepted = await deps.rawStore.getMarker('accepted', intakeId).catch(() => undefined);
  if (record === undefined && accepted === undefined) return { kind: 'unknown', intakeId };
  if (record !== undefined && IN_FLIGHT.has(record.state) && !request.force) return { kind: 'in-flight', intakeId, state: record.state };
  const erasure: Erasure = { at: deps.clock(), reason: request.reason, by: request.by };
  // 1. The tombstone, first: everything after it may stop half-way and be done again.
  await deps.redis.set(erasedKey(deps.prefix, intakeId), JSON.stringify(erasure));
  await deps.rawStore.putMarker('erased', intakeId, JSON.stringify({ intakeId, ...erasure }), 'replace');
  const removed: string[] = [];
  // 2. The raw mail and the markers (accepted/ holds the subject; letter/ and ended/ go with it).
  const blobKey = record?.rawKey ?? (accepted === undefined ? undefined : (JSON.parse(accepted) as { blobKey?: string }).blobKey);
  if (blobKey !== undefined) {
    await deps.rawStore.delete(blobKey);
    removed.push(`raw message ${blobKey}`);
  }
  for (const kind of ['accepted', 'letter', 'ended'] as const) await deps.rawStore.deleteMarker(kind, intakeId);
  removed.push('markers accepted/, letter/, ended/');
  // 3. The job and its data (a finished job keeps its data and return value).
  const job = await deps.queue.getJob(intakeId);
  if (job !== undefined) {
    await job.remove().catch(async () => deps.queue.remove(intakeId));
    removed.push(`job ${intakeId}`);
  }
  if (record !== undefined) {
    // 4. The search index entries by Message-ID and From.
    const pipeline = deps.redis.pipeline();
    pipeline.zrem(`${deps.prefix}:find:mid:${normalizeMessageId(record.messageId)}`, intakeId);
    pipeline.zrem(`${deps.prefix}:find:from:${record.from.toLowerCase()}`, intakeId);
    await pipeline.exec();
    removed.push('search index entries');
    // 5. The session refusals of the same message (same Message-ID and From).
    const samples = await eraseRefusals(deps, record);
    if (samples > 0) removed.push(`${samples} session refusal record(s)`);
    // 6. The record's personal fields, its earlier runs' and notices' text included.
    const key = intakeKeys(deps.prefix).record(intakeId);
    const noticeFields = (await deps.redis.hkeys(key)).filter((f) => /^notice\.[a-z-]+$/.test(f));
    await deps.redis
      .multi()
      .hset(key, scrubbedFields(record))
      // who uploaded it on the portal (an address) and what a dry run would have sent go whole
      .hdel(key, 'rawHeaders', 'rawKey', 'traceId', 'uploadedBy', 'simulatedLetter', ...noticeFields)
      .hset(key, 'erasedAt', String(erasure.at), 'erasedReason', erasure.reason, 'erasedBy', erasure.by)
      .exec();
    removed.push('personal fields of the record and its earlier runs');
  }
  deps.logger.info(
    { event: 'intake.erased', intakeId, reason: request.reason, by: request.by, forced: request.force, removed },
    `intake ${intakeId} erased`,
  );
  return { kind: 'erased', intakeId, removed, letterId: record?.letterId };
}

/** Removes the session refusal records whose Message-ID and From are the record's; how many went. */
async function eraseRefusals(deps: EraseDeps, record: IntakeRecord): Promise<number> {
  let count = 0;
  for (const name of ['refused', 'refused-auth']) {
    const key = `${deps.prefix}:${name}`;
    const members = await deps.redis.zrange(key, '0', '-1');
    const matching = members.filter((m) => {
      try {
        const r = JSON.parse(m) as { messageId?: string; from?: string };
        return r.messageId === record.messageId && (r.from ?? '').toLowerCase() === record.from.toLowerCase();
      } catch {
        return false;
      }
    });
    if (matching.length > 0) count += await deps.redis.zrem(key, ...matching);
  }
  return count;
}
