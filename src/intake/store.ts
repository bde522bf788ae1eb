// The spool: raw messages and intake records in Redis. Every state change is one Lua script,
// so a record's state, its timeline and the state indexes never disagree.
import type { Redis } from 'ioredis';
import { intakeKeys, type IntakeKeys } from './keys.js';
import { luaScript } from './lua-script.js';
import type { SpooledBody } from './raw-spool.js';
import { IntakeSearch } from './search-index.js';
import {
  FINAL_STATES,
  INTAKE_STATES,
  fromHash,
  isIntakeState,
  toHashFields,
  type IntakeRecord,
  type IntakeState,
  type IntakeUpdate,
  type NewIntake,
} from './record.js';

// KEYS: record, raw, received-index, spool. ARGV: now, headers, body, spooled ('1': the body is in
// the spool key, which must exist), intakeId, unfinishedTtlMs, field, value, ...
// The raw message is the headers followed by the body. Returns the existing state when the record
// exists (a re-delivery), else 'created'. A `received` record expires unless queueing confirms it.
const CREATE = luaScript(`
local body = ARGV[3]
if ARGV[4] == '1' then
  body = redis.call('GET', KEYS[4])
  if not body then return redis.error_reply('NOSPOOL the message spool is gone') end
  redis.call('DEL', KEYS[4])
end
local existing = redis.call('HGET', KEYS[1], 'state')
if existing then return existing end
redis.call('SET', KEYS[2], ARGV[2] .. body, 'PX', ARGV[6])
redis.call('HSET', KEYS[1], 'state', 'received', 'at.received', ARGV[1], unpack(ARGV, 7))
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[5])
return 'created'`, 4);

// KEYS: record, raw, state-index prefix. ARGV: to, now, ttlRecordMs, ttlRawMs (-1: keep), allowed-from (comma list),
// field, value, ...
// Returns 'ok', or the current state when the transition is not allowed from it ('' if no record).
const TRANSITION = luaScript(`
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return '' end
local allowed = false
for from in string.gmatch(ARGV[5], '[^,]+') do if from == state then allowed = true end end
if not allowed then return state end
local id = redis.call('HGET', KEYS[1], 'intakeId')
-- a letter after earlier failed attempts: their error fields no longer describe the intake
if ARGV[1] == 'submitted' then redis.call('HDEL', KEYS[1], 'errorCode', 'reason', 'reasonCode', 'traceId') end
-- a worker can take the job before the listener marks it queued: the job was queued by then
if state == 'received' and ARGV[1] ~= 'queued' then redis.call('HSETNX', KEYS[1], 'at.queued', ARGV[2]) end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'at.' .. ARGV[1], ARGV[2], unpack(ARGV, 6))
redis.call('ZREM', KEYS[3] .. state, id)
redis.call('ZADD', KEYS[3] .. ARGV[1], ARGV[2], id)
-- ended intakes' records expire: their index entries go with them
if tonumber(ARGV[3]) >= 0 then redis.call('ZREMRANGEBYSCORE', KEYS[3] .. ARGV[1], '-inf', ARGV[2] - ARGV[3]) end
if tonumber(ARGV[3]) >= 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) else redis.call('PERSIST', KEYS[1]) end
if tonumber(ARGV[4]) >= 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) else redis.call('PERSIST', KEYS[2]) end
return 'ok'`, 3);

/** A record left `received` (queueing failed; the client was told 451) disappears after this. */
const UNFINISHED_TTL_MS = 24 * 3600 * 1000;

export type CreateResult = { readonly created: true } | { readonly created: false; readonly state: IntakeState };
export type TransitionResult = { readonly ok: true } | { readonly ok: false; readonly state: IntakeState | undefined };

export interface RetentionPolicy {
  /** How long the raw message is kept after the intake ended. */
  readonly rawMs: number;
  /** How long the record is kept after the intake ended (kept at least as long as the raw). */
  readonly recordMs: number;
}

export class IntakeStore {
  readonly keys: IntakeKeys;
  /** Lookup by Message-ID, From and letter id, and counts of ended intakes (search-index.ts). */
  readonly search: IntakeSearch;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly retention: RetentionPolicy,
  ) {
    this.keys = intakeKeys(prefix);
    this.search = new IntakeSearch(redis, prefix, Math.max(retention.recordMs, retention.rawMs, UNFINISHED_TTL_MS));
  }

  /**
   * Stores the raw message (headers, then the body from memory or from its spool) and a
   * `received` record, unless a record with this id exists.
   */
  async create(intake: NewIntake, message: { headers: string; body: SpooledBody }, now: number): Promise<CreateResult> {
    const fields = Object.entries(toHashFields(intake)).flat();
    const { body } = message;
    const [spoolKey, bytes, spooled] = 'spoolKey' in body ? [body.spoolKey, '', '1'] : [this.keys.spool('unused'), body.bytes, '0'];
    // Sent together with the record (same connection, one round trip); a re-delivery re-adds the same ids.
    const [result] = await Promise.all([CREATE(
      this.redis,
      this.keys.record(intake.intakeId), this.keys.raw(intake.intakeId), this.keys.stateIndex('received'), spoolKey,
      String(now), message.headers, bytes, spooled, intake.intakeId, String(UNFINISHED_TTL_MS), ...fields,
    ), this.search.created(intake, now)]);
    if (result === 'created') return { created: true };
    return { created: false, state: asState(result) ?? 'received' };
  }

  /** Moves the record to `to` if its current state is one of `from`, with the given fields. */
  async transition(
    intakeId: string,
    from: readonly IntakeState[],
    to: IntakeState,
    now: number,
    update: IntakeUpdate = {},
  ): Promise<TransitionResult> {
    // Ended intakes expire after the retention period; failed ones wait for a replay.
    const ended = FINAL_STATES.includes(to) && to !== 'failed';
    const ttlRecordMs = ended ? Math.max(this.retention.recordMs, this.retention.rawMs) : -1;
    const ttlRawMs = ended ? this.retention.rawMs : -1;
    const fields = Object.entries(toHashFields(update)).flat();
    const result = await TRANSITION(
      this.redis,
      this.keys.record(intakeId), this.keys.raw(intakeId), this.keys.stateIndexPrefix,
      to, String(now), String(ttlRecordMs), String(ttlRawMs), from.join(','), ...fields,
    );
    if (result === 'ok') {
      // Not awaited: the index follows on the same connection (so later reads see it) without
      // delaying the caller; a lost index write only makes the intake harder to find.
      void this.search.changed(intakeId, to, update, now).catch(() => undefined);
      return { ok: true };
    }
    return { ok: false, state: asState(result) };
  }

  /** Sets fields without changing the state (e.g. the letter id checkpoint). */
  async update(intakeId: string, update: IntakeUpdate): Promise<void> {
    const fields = toHashFields(update);
    if (Object.keys(fields).length > 0) await this.redis.hset(this.keys.record(intakeId), fields);
    if (update.letterId !== undefined) void this.search.letter(intakeId, update.letterId).catch(() => undefined);
  }

  async get(intakeId: string): Promise<IntakeRecord | undefined> {
    return fromHash(await this.redis.hgetall(this.keys.record(intakeId)));
  }

  async raw(intakeId: string): Promise<Buffer | undefined> {
    return (await this.redis.getBuffer(this.keys.raw(intakeId))) ?? undefined;
  }

  /** The newest intakes in a state, newest first, skipping the newest `offset`. */
  async list(state: IntakeState, limit = 100, offset = 0): Promise<IntakeRecord[]> {
    const ids = await this.redis.zrevrange(this.keys.stateIndex(state), offset, offset + limit - 1);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is IntakeRecord => r !== undefined && r.state === state);
  }

  async countByState(): Promise<Map<IntakeState, number>> {
    const counts = await Promise.all(INTAKE_STATES.map((s) => this.redis.zcard(this.keys.stateIndex(s))));
    return new Map(INTAKE_STATES.map((s, i) => [s, counts[i] ?? 0]));
  }
}

function asState(value: unknown): IntakeState | undefined {
  return typeof value === 'string' && isIntakeState(value) ? value : undefined;
}
