// The intake list's query string, checked: which states (default: the ones an operator acts
// on) and how many records per page.
import { isIntakeState, type IntakeState } from '../intake/record.js';

export const DEFAULT_LIST_STATES: readonly IntakeState[] = ['failed', 'rejected'];
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export type ListQuery =
  | { readonly ok: true; readonly states: readonly IntakeState[]; readonly limit: number }
  | { readonly ok: false; readonly error: string };

/** `state` may repeat or be comma-separated: `?state=failed,rejected` or `?state=failed&state=queued`. */
export function parseListQuery(query: Readonly<Record<string, string | string[] | undefined>>): ListQuery {
  const raw = [query['state'] ?? []].flat().flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
  const states: IntakeState[] = [];
  for (const value of raw) {
    if (!isIntakeState(value)) return { ok: false, error: `unknown state "${value}"` };
    if (!states.includes(value)) states.push(value);
  }
  const limitText = [query['limit'] ?? []].flat()[0];
  const limit = limitText === undefined ? DEFAULT_LIST_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    return { ok: false, error: `limit must be an integer from 1 to ${MAX_LIST_LIMIT}` };
  }
  return { ok: true, states: states.length > 0 ? states : DEFAULT_LIST_STATES, limit };
}
