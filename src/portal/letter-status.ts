// The status the Sender API shows a letter now, for the letters page: by the letter ids the
// gateway recorded (the contract has no listing to rely on), each call bounded, answers cached a
// minute, and at most a few calls per page, so a slow API never hangs the page ("not known now").
import type { SenderSession } from '../sender-api/index.js';
import type { Sender } from '../senders/directory.js';

export const STATUS_CACHE_MS = 60_000;
export const STATUS_TIMEOUT_MS = 2000;
/** Calls one page makes at most; the rest show their recorded status. */
export const STATUS_CALLS_PER_PAGE = 20;

export type LetterStatusOf = (sender: Sender, letterIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;

export function letterStatuses(sessionOf: (sender: Sender) => SenderSession, clock: () => number): LetterStatusOf {
  const cache = new Map<string, { status: string; at: number }>();
  return async (sender, letterIds) => {
    const now = clock();
    const answers = new Map<string, string>();
    const due: string[] = [];
    for (const id of letterIds) {
      const cached = cache.get(id);
      if (cached !== undefined && now - cached.at < STATUS_CACHE_MS) answers.set(id, cached.status);
      else if (due.length < STATUS_CALLS_PER_PAGE) due.push(id);
    }
    const session = sessionOf(sender);
    await Promise.all(
      due.map(async (id) => {
        try {
          const letter = await session.getLetter(id, { signal: AbortSignal.timeout(STATUS_TIMEOUT_MS) });
          cache.set(id, { status: letter.status, at: clock() });
          answers.set(id, letter.status);
        } catch {
          // shown as "not known now": the page never waits past the bound
        }
      }),
    );
    if (cache.size > 10_000) cache.clear();
    return answers;
  };
}
