// Bulk replay: every `failed` intake that matches a filter (its error code, when it failed, its
// sender) goes back to the queue, each through replayIntake (record first, then the job; the
// exactly-once checkpoint carries over). For what did fail during an outage, once its cause is
// gone. The filter is parsed and matched by pure functions; one call replays at most `max`.

import type { IntakeRecord } from './record.js';
import { type ReplayDeps, replayIntake } from './replay.js';

export interface ReplayFilter {
  /** The record's errorCode, e.g. `HTTP503` or `JobAbandoned`. */
  readonly errorCode?: string;
  /** Failed at or after (ms since the epoch). */
  readonly since?: number;
  /** Failed at or before (ms since the epoch). */
  readonly until?: number;
  /** The sender's id (directory `senderId`) or its authenticated From address. */
  readonly sender?: string;
}

export type ParsedFilter = { readonly ok: true; readonly filter: ReplayFilter } | { readonly ok: false; readonly error: string };

/** The filter from form fields or command-line options (empty means "any"); times are ISO 8601. */
export function parseReplayFilter(input: Readonly<Record<string, string | undefined>>): ParsedFilter {
  const text = (name: string): string | undefined => {
    const value = input[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const filter: { errorCode?: string; since?: number; until?: number; sender?: string } = {};
  const errorCode = text('errorCode');
  if (errorCode !== undefined) filter.errorCode = errorCode;
  const sender = text('sender');
  if (sender !== undefined) filter.sender = sender.toLowerCase();
  for (const name of ['since', 'until'] as const) {
    const value = text(name);
    if (value === undefined) continue;
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) return { ok: false, error: `${name}: not a time: ${value} (use ISO 8601, e.g. 2026-11-25T14:00:00Z)` };
    filter[name] = ms;
  }
  if (filter.since !== undefined && filter.until !== undefined && filter.since > filter.until) {
    return { ok: false, error: 'since is after until' };
  }
  return { ok: true, filter };
}

/** Does a failed record match? (Its failure time is the timeline's `failed`.) */
export function matchesReplayFilter(record: IntakeRecord, filter: ReplayFilter): boolean {
  if (record.state !== 'failed') return false;
  if (filter.errorCode !== undefined && record.errorCode !== filter.errorCode) return false;
  const failedAt = record.timeline.failed ?? record.receivedAt;
  if (filter.since !== undefined && failedAt < filter.since) return false;
  if (filter.until !== undefined && failedAt > filter.until) return false;
  if (filter.sender !== undefined && record.senderId?.toLowerCase() !== filter.sender && record.from.toLowerCase() !== filter.sender) {
    return false;
  }
  return true;
}

export interface BulkReplayResult {
  readonly replayed: readonly string[];
  readonly refused: readonly { readonly intakeId: string; readonly reason: string }[];
  /** More failed intakes matched than one call replays: run it again. */
  readonly more: boolean;
}

export const BULK_REPLAY_MAX = 1000;
const PAGE = 200;
const LAST = Number.MAX_SAFE_INTEGER;

export async function replayFailed(deps: ReplayDeps, filter: ReplayFilter, max = BULK_REPLAY_MAX): Promise<BulkReplayResult> {
  const matched: string[] = [];
  let more = false;
  // The failed index is scored by the time of failing: the range narrows the read at once.
  for (let offset = 0; ; offset += PAGE) {
    const ids = await deps.store.idsEnteredStateBetween('failed', filter.since ?? 0, filter.until ?? LAST, offset, PAGE);
    for (const id of ids) {
      const record = await deps.store.get(id);
      if (record === undefined || !matchesReplayFilter(record, filter)) continue;
      if (matched.length === max) {
        more = true;
        break;
      }
      matched.push(id);
    }
    if (more || ids.length < PAGE) break;
  }
  const replayed: string[] = [];
  const refused: { intakeId: string; reason: string }[] = [];
  for (const intakeId of matched) {
    const result = await replayIntake(deps, intakeId);
    if (result.ok) replayed.push(intakeId);
    else refused.push({ intakeId, reason: result.reason });
  }
  return { replayed, refused, more };
}
