// The Sender API client seen through the worker's LetterApi port (submit-letter.ts), and the
// search for a draft an earlier attempt made but could not record. The contract does not show
// the listing, so the search is careful about what it concludes:
//   400, 403, 404, 405, 501, or a 2xx the client cannot read → it cannot search
//   401 → the client's one shared re-login (sender-session.ts); 429, 5xx, time-out → the error
//   stands (the queue pauses, or the attempt is retried)
// A draft is found only when its title, description and every PDF digest match and it was
// created at or after the marker; a listing that shows fewer fields cannot be searched (a title
// alone never decides). The listing is read unfiltered: the contract names no status to filter by.
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
  const drafts: FoundDraft[] = [];
  let seen = 0;
  for (let page = 1; page <= SEARCH_PAGES; page += 1) {
    const result = await listPage(session, page, signal);
    if (result === undefined) return { kind: 'unsearchable' };
    drafts.push(...result.items.filter((l) => isWanted(l, wanted)).map((l) => ({ id: l.id, status: l.status })));
    seen += result.items.length;
    if (seen >= result.total) return drafts.length === 0 ? { kind: 'none' } : { kind: 'found', drafts };
    if (result.items.length === 0) break; // a page short of the total: the rest cannot be read
  }
  // Not every letter was read: a draft may be among the rest.
  return drafts.length === 0 ? { kind: 'unsearchable' } : { kind: 'found', drafts };
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
