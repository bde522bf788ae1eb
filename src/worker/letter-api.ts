// The Sender API client seen through the worker's LetterApi port (submit-letter.ts), and the
// search for a draft an earlier attempt made but could not record. The contract does not show
// the listing, so the search is careful about what it concludes:
//   400, 403, 404, 405, 501, or a 2xx the client cannot read → it cannot search
//   401 → the client's one shared re-login (sender-session.ts); 429, 5xx, time-out → the error
//   stands (a Retry-After holds the API's letters, or the attempt is retried)
// A draft is found only when its title, description and every PDF digest match and it was
// created at or after the marker; a listing that shows fewer fields cannot be searched (a title
// alone never decides). The listing is read unfiltered: the contract names no status to filter by.
// A listing longer than the pages read is read from both ends, where the newest letters are.
import { type ListedLetter, parseApiDateTime, SenderApiError, type SenderSession } from '../sender-api/index.js';
import type { LetterDraft } from './decide.js';
import type { DraftSearch, FoundDraft, LetterApi } from './submit-letter.js';

const SEARCH_PAGES = 5;
const PAGE_SIZE = 100;

/** Answers to the listing that say the API offers no listing the client can use. */
export const CANNOT_SEARCH_STATUSES: ReadonlySet<number> = new Set([400, 403, 404, 405, 501]);

export function letterApiFor(session: SenderSession): LetterApi {
  return {
    saveDraft: (letter, signal) => session.saveDraft(letter, { signal }),
    submit: (id, letter, signal) => session.submit({ ...letter, id }, { signal }),
    getLetter: (id, signal) => session.getLetter(id, { signal }),
    findDraft: (letter, pdfSha256s, since, signal) => findDraft(session, { letter, pdfSha256s, since }, signal),
  };
}

interface Wanted {
  readonly letter: LetterDraft;
  readonly pdfSha256s: readonly string[];
  readonly since: number;
}

async function findDraft(session: SenderSession, wanted: Wanted, signal: AbortSignal): Promise<DraftSearch> {
  const first = await listPage(session, 1, signal);
  if (first === undefined) return { kind: 'unsearchable' };
  const drafts: FoundDraft[] = matching(first.items, wanted);
  let seen = first.items.length;
  for (const page of laterPages(first.items.length, first.total)) {
    const result = await listPage(session, page, signal);
    if (result === undefined) return { kind: 'unsearchable' };
    drafts.push(...matching(result.items, wanted));
    seen += result.items.length;
    if (result.items.length === 0) break; // a page short of the total: the rest cannot be read
  }
  if (seen >= first.total) return drafts.length === 0 ? { kind: 'none' } : { kind: 'found', drafts };
  // Not every letter was read: a draft may be among the rest.
  return drafts.length === 0 ? { kind: 'unsearchable' } : { kind: 'found', drafts };
}

/**
 * The pages read after the first, at most SEARCH_PAGES in all. The listing's order is not shown:
 * the newest letters (where a recent draft is) are on the first page when it lists newest first,
 * on the last pages when it lists oldest first (the sandbox), so a long listing is read from both ends.
 */
function laterPages(firstPageItems: number, total: number): number[] {
  if (firstPageItems === 0 || firstPageItems >= total) return [];
  const pages = Math.ceil(total / firstPageItems);
  if (pages <= SEARCH_PAGES) return Array.from({ length: pages - 1 }, (_, i) => i + 2);
  return Array.from({ length: SEARCH_PAGES - 1 }, (_, i) => pages - i);
}

function matching(items: readonly ListedLetter[], wanted: Wanted): FoundDraft[] {
  return items.filter((l) => isWanted(l, wanted)).map((l) => ({ id: l.id, status: l.status }));
}

/** One page of the sender's letters; undefined when the API offers no listing the client can read. */
async function listPage(session: SenderSession, page: number, signal: AbortSignal) {
  try {
    return await session.listLetters({ page, pageSize: PAGE_SIZE }, { signal });
  } catch (err) {
    const unsupported = err instanceof SenderApiError && err.statusCode !== undefined && CANNOT_SEARCH_STATUSES.has(err.statusCode);
    if (unsupported) return undefined;
    throw err;
  }
}

function isWanted(listed: ListedLetter, wanted: Wanted): boolean {
  const created = parseApiDateTime(listed.createdUtc);
  return (
    created !== undefined &&
    created >= wanted.since &&
    listed.title === wanted.letter.title &&
    listed.description === wanted.letter.description &&
    listed.parts.map((p) => p.sha256).join() === wanted.pdfSha256s.join()
  );
}
