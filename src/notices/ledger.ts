// The notices' exactly-once checkpoints, kept in the intake record itself. Every move is one Lua
// script that compares the kind's current state with the states it may come from, so two
// workers holding the same notice job (a lapsed lock) cannot both pass a checkpoint.

import { type IntakeKeys, intakeKeys } from '../intake/keys.js';
import { luaScript } from '../intake/lua-script.js';
import { isNoticeState, type NoticeEntry, type NoticeState, noticeEntryField, noticeStateField } from '../intake/notice-fields.js';
import type { RedisClient } from '../redis/connections.js';
import type { NoticeKind } from '../words/notice-kind.js';

/** Stands for "no entry yet" among the states a move may come from. */
export const ABSENT = 'absent';
export type FromState = NoticeState | typeof ABSENT;

/** One checkpoint move, compared with the states it may come from (scripts/move-notice-1.lua). */
const MOVE = luaScript(new URL('./scripts/move-notice-1.lua', import.meta.url));

export type MoveResult = { readonly ok: true } | { readonly ok: false; readonly state: FromState | 'gone' };

export class NoticeLedger {
  private readonly keys: IntakeKeys;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
  ) {
    this.keys = intakeKeys(prefix);
  }

  /** Writes `entry` for the kind if its current state is one of `from`. */
  async move(intakeId: string, kind: NoticeKind, from: readonly FromState[], entry: NoticeEntry): Promise<MoveResult> {
    const result = await MOVE(
      this.redis,
      this.keys.record(intakeId),
      noticeStateField(kind),
      noticeEntryField(kind),
      entry.state,
      JSON.stringify(entry),
      from.join(','),
    );
    if (result === 'ok') return { ok: true };
    return { ok: false, state: asFromState(result) };
  }

  /** Whether the intake left `failed` before: the record keeps its failed runs (store-scripts.ts, TRANSITION). */
  async leftFailed(intakeId: string): Promise<boolean> {
    return (await this.redis.hexists(this.keys.record(intakeId), 'earlierRuns')) === 1;
  }
}

function asFromState(value: unknown): FromState | 'gone' {
  if (value === 'gone' || value === ABSENT) return value;
  return typeof value === 'string' && isNoticeState(value) ? value : 'gone';
}
