// The intake list's query string, checked: which states (default: every state, so the first
// page shows the latest intakes whatever became of them), a search term, the page and how many
// records per page.
import { INTAKE_STATES, type IntakeState, isIntakeState } from '../intake/record.js';

export const DEFAULT_LIST_STATES: readonly IntakeState[] = INTAKE_STATES;
export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 1000;
/** Paging goes this deep; past it, search or narrow the states. */
export const MAX_LIST_DEPTH = 10_000;

export type ListQuery =
  | {
      readonly ok: true;
      readonly states: readonly IntakeState[];
      /** States as the operator asked for them (none: the default). */
      readonly explicitStates: boolean;
      readonly limit: number;
      /** 1-based. */
      readonly page: number;
      /** A Message-ID, From address, intake id or letter id; undefined when not searching. */
      readonly q: string | undefined;
    }
  | { readonly ok: false; readonly error: string };

type Query = Readonly<Record<string, string | string[] | undefined>>;
const first = (query: Query, name: string): string | undefined => [query[name] ?? []].flat()[0];

/** `state` may repeat or be comma-separated: `?state=failed,rejected` or `?state=failed&state=queued`. */
export function parseListQuery(query: Query): ListQuery {
  const raw = [query.state ?? []]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const states: IntakeState[] = [];
  for (const value of raw) {
    if (!isIntakeState(value)) return { ok: false, error: `unknown state "${value}"` };
    if (!states.includes(value)) states.push(value);
  }
  const limit = integer(first(query, 'limit'), DEFAULT_LIST_LIMIT);
  if (limit === undefined || limit < 1 || limit > MAX_LIST_LIMIT) {
    return { ok: false, error: `limit must be an integer from 1 to ${MAX_LIST_LIMIT}` };
  }
  const page = integer(first(query, 'page'), 1);
  if (page === undefined || page < 1 || page * limit > MAX_LIST_DEPTH) {
    return { ok: false, error: `page must be an integer from 1 to ${Math.floor(MAX_LIST_DEPTH / limit)} at this limit` };
  }
  const q = first(query, 'q')?.trim();
  return {
    ok: true,
    states: states.length > 0 ? states : DEFAULT_LIST_STATES,
    explicitStates: states.length > 0,
    limit,
    page,
    q: q === undefined || q === '' ? undefined : q.slice(0, 998), // RFC 5322 §2.1.1: no header line is longer
  };
}

function integer(text: string | undefined, fallback: number): number | undefined {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  return Number.isInteger(value) ? value : undefined;
}
