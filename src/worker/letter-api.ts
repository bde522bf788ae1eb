// The Sender API client seen through the worker's LetterApi port (submit-letter.ts).
import { SenderApiError, type SenderSession } from '../sender-api/index.js';
import type { LetterDraft } from './decide.js';
import type { DraftSearch, LetterApi } from './submit-letter.js';

const DRAFT_SEARCH_PAGES = 5;
const PAGE_SIZE = 100;

export function letterApiFor(session: SenderSession): LetterApi {
  return {
    saveDraft: (letter, signal) => session.saveDraft(letter, { signal }),
    submit: (id, letter, signal) => session.submit({ ...letter, id }, { signal }),
    getLetter: (id, signal) => session.getLetter(id, { signal }),
    async findDraft(letter, pdfSha256s, since, signal): Promise<DraftSearch> {
      for (let page = 1; page <= DRAFT_SEARCH_PAGES; page += 1) {
        const result = await listDrafts(session, page, signal);
        if (result === undefined) return { kind: 'unsearchable' };
        const match = result.items.find((d) => Date.parse(d.createdUtc) >= since && sameLetter(d, letter, pdfSha256s));
        if (match !== undefined) return { kind: 'found', id: match.id };
        if (page * PAGE_SIZE >= result.total) return { kind: 'none' };
      }
      return { kind: 'none' };
    },
  };
}

/** One page of the sender's drafts; undefined when the API lists no letters (the contract leaves the listing out). */
async function listDrafts(session: SenderSession, page: number, signal: AbortSignal) {
  try {
    return await session.listLetters({ status: 'Draft', page, pageSize: PAGE_SIZE }, { signal });
  } catch (err) {
    const unsupported = err instanceof SenderApiError && (err.statusCode === 404 || err.statusCode === 405);
    if (unsupported) return undefined;
    throw err;
  }
}

function sameLetter(
  draft: { title: string; description: string; parts: readonly { sha256: string }[] },
  letter: LetterDraft,
  pdfSha256s: readonly string[],
): boolean {
  return (
    draft.title === letter.title &&
    draft.description === letter.description &&
    draft.parts.map((p) => p.sha256).join() === pdfSha256s.join()
  );
}
