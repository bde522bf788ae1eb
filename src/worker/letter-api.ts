// The Sender API client seen through the worker's LetterApi port (submit-letter.ts).
import type { SenderSession } from '../sender-api/index.js';
import type { LetterDraft } from './decide.js';
import type { LetterApi } from './submit-letter.js';

const DRAFT_SEARCH_PAGES = 5;
const PAGE_SIZE = 100;

export function letterApiFor(session: SenderSession): LetterApi {
  return {
    saveDraft: (letter, signal) => session.saveDraft(letter, { signal }),
    submit: (id, letter, signal) => session.submit({ ...letter, id }, { signal }),
    getLetter: (id, signal) => session.getLetter(id, { signal }),
    async findDraft(letter, pdfSha256s, since, signal) {
      for (let page = 1; page <= DRAFT_SEARCH_PAGES; page += 1) {
        const result = await session.listLetters({ status: 'Draft', page, pageSize: PAGE_SIZE }, { signal });
        const match = result.items.find((d) => Date.parse(d.createdUtc) >= since && sameLetter(d, letter, pdfSha256s));
        if (match !== undefined) return match.id;
        if (page * PAGE_SIZE >= result.total) return undefined;
      }
      return undefined;
    },
  };
}

function sameLetter(
  draft: { title: string; description: string; parts: readonly { sha256: string }[] },
  letter: LetterDraft,
  pdfSha256s: readonly string[],
): boolean {
  return draft.title === letter.title
    && draft.description === letter.description
    && draft.parts.map((p) => p.sha256).join() === pdfSha256s.join();
}
