// Intake records in Redis; the messages themselves are in the raw store, and a record points at
// its blob (raw-store/raw-message.ts reads it from there). Every state change is one Lua script,
// so a record's state, its timeline, the state indexes and the blob index never disagree.

import { IntakeError } from '../errors.js';
import type { RedisClient } from '../redis/connections.js';
import { type BlobIndexKeys, blobIndexKeys } from './blob-index.js';
import { type IntakeKeys, intakeKeys } from './keys.js';
import { luaScript } from './lua-script.js';
import type { StoredBody } from './raw-spool.js';
import {
  FINAL_STATES,
  fromHash,
  INTAKE_STATES,
  type IntakeRecord,
  type IntakeState,
  type IntakeUpdate,
  isIntakeState,
  type NewIntake,
  type StrayDraft,
  toHashFields,
} from './record.js';
import { IntakeSearch } from './search-index.js';

// Each state change or guarded write is one script, so a record's state, its owner, its timeline
// and the state indexes never disagree. What each takes and answers is in its file's header.
const CREATE = luaScript(new URL('./scripts/create-6.lua', import.meta.url));
const TRANSITION = luaScript(new URL('./scripts/transition-9.lua', import.meta.url));
const CHECKPOINT = luaScript(new URL('./scripts/checkpoint-1.lua', import.meta.url));
const CHECKPOINT_LETTER = luaScript(new URL('./scripts/checkpoint-letter-2.lua', import.meta.url));
const APPEND_STRAY_DRAFT = luaScript(new URL('./scripts/append-stray-draft-1.lua', import.meta.url));

/** A record left `received` (queueing failed; the client was told 451) disappears after this. */
const UNFINISHED_TTL_MS = 24 * 3600 * 1000;

export type CreateResult =
  | { readonly created: true }
  /** A re-delivery: the record as it was, and the blob and header lines it points at (not the new copy's). */
  | {
      readonly created: false;
      readonly state: IntakeState;
      readonly requeue: false;
      readonly rawKey: string | undefined;
      readonly rawHeaders: string;
    }
  /**
   * The intake had failed: its record points at the new copy and stays `failed`, with its
   * checkpoint, until the caller queues it anew (replay.ts), so a stop in between leaves it replayable.
   */
  | { readonly created: false; readonly state: 'failed'; readonly requeue: true; readonly letterId: string | undefined };
export type TransitionResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly state: IntakeState | undefined; readonly notOwner?: true };
export type CheckpointResult = 'ok' | 'notowner' | 'conflict';

/** Who may make a transition: `expectedOwner` fences it; `claim` makes the caller the owner. */
export interface TransitionGuard {
  readonly expectedOwner?: string;
  readonly claim?: string;
  /** Answer with the record as the move left it (a claim always does). */
  readonly read?: boolean;
}

export interface RetentionPolicy {
  /** How long the raw message is kept after the intake ended. */
  readonly rawMs: number;
  /** How long the record is kept after the intake ended (kept at least as long as the raw). */
  readonly recordMs: number;
}

export class IntakeStore {
  readonly keys: IntakeKeys;
  readonly blobKeys: BlobIndexKeys;
  /** Lookup by Message-ID, From and letter id, and counts of ended intakes (search-index.ts). */
  readonly search: IntakeSearch;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly retention: RetentionPolicy,
  ) {
    this.keys = intakeKeys(prefix);
    this.blobKeys = blobIndexKeys(prefix);
    this.search = new IntakeSearch(redis, prefix, Math.max(retention.recordMs, retention.rawMs, UNFINISHED_TTL_MS));
  }

  /**
   * Stores a `received` record pointing at the committed blob and its header lines, unless a
   * record with this id exists; a `failed` one stays `failed`, points at the new blob and is
   * answered `requeue` (the caller queues it anew as a replay does); any other is left as it is.
   * An erased intake's message makes nothing: IntakeError `Erased`, naming the day of the erasure.
   */
  async create(intake: NewIntake, message: { headers: string; body: StoredBody }, now: number): Promise<CreateResult> {
    const fields = Object.entries(toHashFields(intake)).flat();
    const index = this.search.createdEntries(intake);
    const result = await CREATE(
      this.redis,
      this.keys.record(intake.intakeId),
      this.keys.stateIndex('received'),
      this.blobKeys.blobs,
      ...index.keys,
      this.keys.erased(intake.intakeId),
      String(now),
      intake.intakeId,
      String(UNFINISHED_TTL_MS),
      message.body.blobKey,
      message.headers,
      String(index.keepMs),
      ...fields,
    );
    if (result === 'created') return { created: true };
    if (Array.isArray(result) && result[0] === 'erased') throw erasedIntake(intake.intakeId, result[1]);
    if (Array.isArray(result) && result[0] === 'requeue') {
      const letterId: unknown = result[1];
      return {
        created: false,
        state: 'failed',
        requeue: true,
        letterId: typeof letterId === 'string' && letterId !== '' ? letterId : undefined,
      };
    }
    const [state, rawKey, rawHeaders]: unknown[] = Array.isArray(result) ? result : [result];
    return {
      created: false,
      state: asState(state) ?? 'received',
      requeue: false,
      rawKey: typeof rawKey === 'string' && rawKey !== '' ? rawKey : undefined,
      rawHeaders: typeof rawHeaders === 'string' ? rawHeaders : '',
    };
  }

  /** Puts an erased intake's tombstone back (recover, after a Redis loss); true when it was missing. */
  async restoreErasure(intakeId: string, tombstone: string): Promise<boolean> {
    return (await this.redis.set(this.keys.erased(intakeId), tombstone, 'NX')) === 'OK';
  }

  /**
   * Moves the record to `to` if its current state is one of `from`, with the given fields.
   * With `guard.expectedOwner`, only while that owner holds the record.
   */
  async transition(
    intakeId: string,
    from: readonly IntakeState[],
    to: IntakeState,
    now: number,
    update: IntakeUpdate = {},
    guard: Omit<TransitionGuard, 'read'> = {},
  ): Promise<TransitionResult> {
    const { record: _record, ...result } = await this.#transition(intakeId, from, to, now, update, guard);
    return result;
  }

  /** A transition that answers with the record as it left it, in the same round trip (a worker's end writes its ended marker from it). */
  async transitionAndRead(
    intakeId: string,
    from: readonly IntakeState[],
    to: IntakeState,
    now: number,
    update: IntakeUpdate,
    guard: Omit<TransitionGuard, 'read' | 'claim'> = {},
  ): Promise<TransitionResult & { readonly record?: IntakeRecord | undefined }> {
    return this.#transition(intakeId, from, to, now, update, { ...guard, read: true });
  }

  /**
   * Claims the record for `owner` (→ `processing`, from one of `from`) and answers with the
   * record as the claim left it, checkpoints included: one round trip instead of a claim and a read.
   */
  async claim(
    intakeId: string,
    from: readonly IntakeState[],
    now: number,
    update: IntakeUpdate,
    owner: string,
  ): Promise<TransitionResult & { readonly record?: IntakeRecord | undefined }> {
    return this.#transition(intakeId, from, 'processing', now, update, { claim: owner });
  }

  async #transition(
    intakeId: string,
    from: readonly IntakeState[],
    to: IntakeState,
    now: number,
    update: IntakeUpdate,
    guard: TransitionGuard,
  ): Promise<TransitionResult & { readonly record?: IntakeRecord | undefined }> {
    // Ended intakes expire after the retention period; failed ones wait for a replay.
    const ended = FINAL_STATES.includes(to) && to !== 'failed';
    const ttlRecordMs = ended ? Math.max(this.retention.recordMs, this.retention.rawMs) : -1;
    const ttlRawMs = ended ? this.retention.rawMs : -1;
    const fields = Object.entries(toHashFields(update)).flat();
    const result = await TRANSITION(
      this.redis,
      this.keys.record(intakeId),
      this.blobKeys.due,
      ...INTAKE_STATES.map((state) => this.keys.stateIndex(state)),
      to,
      String(now),
      String(ttlRecordMs),
      String(ttlRawMs),
      from.join(','),
      guard.expectedOwner ?? '',
      guard.claim ?? '',
      guard.read === true ? '1' : '',
      ...fields,
    );
    const claimed = Array.isArray(result) && result[0] === 'ok' ? result[1] : undefined;
    if (result === 'ok' || claimed !== undefined) {
      // Not awaited: the index follows on the same connection (so later reads see it) without
      // delaying the caller; a lost index write only makes the intake harder to find.
      void this.search.changed(intakeId, to, update, now).catch(() => undefined);
      return claimed === undefined ? { ok: true } : { ok: true, record: fromHash(pairs(claimed)) };
    }
    if (result === 'notowner') return { ok: false, state: undefined, notOwner: true };
    return { ok: false, state: asState(result) };
  }

  /**
   * Sets checkpoint fields while `owner` holds the `processing` record. `writeOnce` names a field
   * that, once set, may not change (the letter id: one intake, one letter).
   */
  async checkpoint(
    intakeId: string,
    owner: string,
    update: IntakeUpdate,
    writeOnce: keyof IntakeUpdate | '' = '',
  ): Promise<CheckpointResult> {
    const fields = Object.entries(toHashFields(update)).flat();
    const result = await CHECKPOINT(this.redis, this.keys.record(intakeId), owner, writeOnce, ...fields);
    if (result === 'ok' && update.letterId !== undefined) void this.search.letter(intakeId, update.letterId).catch(() => undefined);
    return result === 'ok' || result === 'conflict' ? result : 'notowner';
  }

  /**
   * Records the intake's letter id (write-once) and the status its draft showed, while `owner`
   * holds the intake and no other intake has recorded that letter ('taken'). Without a draft
   * status (its read-back failed) only the id is recorded.
   */
  async checkpointLetter(
    intakeId: string,
    owner: string,
    letterId: string,
    draftStatus: string | undefined,
  ): Promise<CheckpointResult | 'taken'> {
    const entry = this.search.letterEntry(letterId);
    const result = await CHECKPOINT_LETTER(
      this.redis,
      this.keys.record(intakeId),
      entry.key,
      owner,
      intakeId,
      String(entry.keepMs),
      letterId,
      ...(draftStatus === undefined ? [] : ['draftStatus', draftStatus]),
    );
    return result === 'ok' || result === 'conflict' || result === 'taken' ? result : 'notowner';
  }

  /** Whether `owner` holds the record (in `processing`) right now. */
  async isOwner(intakeId: string, owner: string): Promise<boolean> {
    const [state, current] = await this.redis.hmget(this.keys.record(intakeId), 'state', 'owner');
    return state === 'processing' && current === owner;
  }

  /** Notes a draft that will never be submitted (see StrayDraft); true when it was new. */
  async addStrayDraft(intakeId: string, stray: StrayDraft): Promise<boolean> {
    const added = await APPEND_STRAY_DRAFT(
      this.redis,
      this.keys.record(intakeId),
      JSON.stringify(stray),
      stray.letterId ?? '',
      stray.requestedAt === undefined ? '' : String(stray.requestedAt),
    );
    return added === 1;
  }

  /** Ids of intakes that entered `state` at or before `before`, oldest first, `count` from `offset`. */
  async idsInStateSince(state: IntakeState, before: number, offset: number, count: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.stateIndex(state), '-inf', before, 'LIMIT', offset, count);
  }

  /** Ids that entered `state` between `from` and `to` (ms since the epoch, both included), oldest first. */
  async idsEnteredStateBetween(state: IntakeState, from: number, to: number, offset: number, count: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.stateIndex(state), from, to, 'LIMIT', offset, count);
  }

  async get(intakeId: string): Promise<IntakeRecord | undefined> {
    return fromHash(await this.redis.hgetall(this.keys.record(intakeId)));
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

/** HGETALL's flat [field, value, ...] list, as a Lua script returns it, as a record of fields. */
function pairs(flat: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(flat)) return fields;
  for (let i = 0; i + 1 < flat.length; i += 2) fields[String(flat[i])] = String(flat[i + 1]);
  return fields;
}

/** The refusal of a message whose intake was erased (the tombstone's day, never its reason). */
function erasedIntake(intakeId: string, tombstone: unknown): IntakeError {
  const at = typeof tombstone === 'string' ? Number((/"at":(\d+)/.exec(tombstone) ?? [])[1]) : Number.NaN;
  const day = Number.isFinite(at) ? ` on ${new Date(at).toISOString().slice(0, 10)}` : '';
  return new IntakeError('Erased', `this message's intake ${intakeId} was erased${day} at the sender's request; it is not taken again`, {
    intakeId,
  });
}
