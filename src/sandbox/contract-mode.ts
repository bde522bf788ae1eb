// The sandbox's contract modes (SANDBOX_CONTRACT_MODE): where the Sender API contract leaves a
// choice open, how the sandbox answers; the gateway must work against all of them
// (docs/sender-api-client.md). ours and strict stay within the contract; the foreign modes go
// beyond it on purpose where real APIs do (bare 401s, zoneless datetimes, short sessions; the
// list and the reasons are in docs/sandbox-api.md).
//
//   ours          our documented choices: zoned datetimes, full sessions, the error envelope on
//                 every 401, letters in detail, a listing of letters
//   strict        only what the contract promises: a letter is {id, status, title, sender}, no listing
//   foreign       the choices another implementation might make: datetimes without a zone and
//                 with seven fraction digits (a +04:00 offset on every other login), a refresh
//                 answering {sessionId} only, 401s with an empty, a text/plain or a {message}-only
//                 body in turn, no listing, a draft status name of its own, extra fields
//                 everywhere, sessions of five minutes
//   foreign-list  foreign, plus a listing in another shape (paged, without descriptions)
import type { FastifyReply } from 'fastify';
import { CONTRACT_MODES, type ContractMode } from '../config.js';
import { SandboxApiError } from './error-codes.js';
import type { LetterStatus } from './letter-rules.js';
import type { LetterPage, StoredLetter } from './letter-store.js';
import { SESSION_TTL_MS, type Session } from './sessions.js';
import { detailView, sessionView, summaryView } from './views.js';

// The mode names are config's (the setting that chooses one); the sandbox's readers find them here too.
export { CONTRACT_MODES, type ContractMode };

/** The foreign draft status: the contract names none. */
export const FOREIGN_DRAFT_STATUS = 'Unsent';

/** A foreign session lives this long (inside our own 30-minute assumption). */
export const FOREIGN_SESSION_TTL_MS = 5 * 60_000;

/** An answer other than JSON with the error envelope. */
export interface RawAnswer {
  readonly contentType: string | undefined;
  readonly body: string;
}

export interface ContractDialect {
  readonly mode: ContractMode;
  readonly sessionTtlMs: number;
  /** Whether GET /api/v1/letters exists. */
  readonly lists: boolean;
  loginAnswer(session: Session): object;
  refreshAnswer(session: Session): object;
  /** The 401 for a missing, unknown or expired session; undefined: the error envelope. */
  invalidSessionAnswer(): RawAnswer | undefined;
  /** The answer to a draft save or a submit. */
  summary(letter: StoredLetter, companyNameEn: string): object;
  /** GET /api/v1/letters/{id}. */
  letter(letter: StoredLetter, companyNameEn: string): object;
  listing(page: LetterPage, companyNameEn: string): object;
  /** The internal status a listing's `status` filter names, if it names one. */
  statusFilter(name: string): string;
}

export function contractDialect(mode: ContractMode): ContractDialect {
  if (mode === 'ours' || mode === 'strict') return ourDialect(mode);
  return foreignDialect(mode);
}

function ourDialect(mode: 'ours' | 'strict'): ContractDialect {
  return {
    mode,
    sessionTtlMs: SESSION_TTL_MS,
    lists: mode === 'ours',
    loginAnswer: sessionView,
    refreshAnswer: sessionView,
    invalidSessionAnswer: () => undefined,
    summary: summaryView,
    letter: mode === 'ours' ? detailView : summaryView,
    listing: (page, name) => ({ ...page, items: page.items.map((l) => detailView(l, name)) }),
    statusFilter: (name) => name,
  };
}

const UNAUTHORIZED_BODIES: readonly RawAnswer[] = [
  { contentType: undefined, body: '' },
  { contentType: 'text/plain; charset=utf-8', body: 'Session expired' },
  { contentType: 'application/json; charset=utf-8', body: JSON.stringify({ message: 'Session expired' }) },
];

function foreignDialect(mode: 'foreign' | 'foreign-list'): ContractDialect {
  let logins = 0;
  let refusals = 0;
  const status = (s: LetterStatus): string => (s === 'Draft' ? FOREIGN_DRAFT_STATUS : s);
  const letter = (l: StoredLetter, name: string): object => ({
    ...summaryView(l, name),
    status: status(l.status),
    sender: { companyNameEn: name, country: 'AE' },
    revision: 3,
  });
  return {
    mode,
    sessionTtlMs: FOREIGN_SESSION_TTL_MS,
    lists: mode === 'foreign-list',
    loginAnswer(session) {
      logins += 1;
      const offset = logins % 2 === 0 ? '+04:00' : '';
      return { ...sessionFields(session, offset), isValid: true, userName: 'api-client', roles: ['LetterWriter'] };
    },
    refreshAnswer: (session) => ({ sessionId: session.sessionId }),
    invalidSessionAnswer() {
      const answer = UNAUTHORIZED_BODIES[refusals % UNAUTHORIZED_BODIES.length] ?? { contentType: undefined, body: '' };
      refusals += 1;
      return answer;
    },
    summary: letter,
    letter,
    listing: (page) => ({
      data: page.items.map((l) => ({
        id: l.id,
        status: status(l.status),
        title: l.title,
        createdAt: foreignDateTime(l.createdMs, ''),
        documents: l.parts.map((p) => ({ id: p.id, name: p.fileName })),
      })),
      paging: { page: page.page, size: page.pageSize, totalCount: page.total },
    }),
    statusFilter: (name) => (name === FOREIGN_DRAFT_STATUS ? 'Draft' : name),
  };
}

function sessionFields(session: Session, offset: '' | '+04:00'): { sessionId: string; senderId: string; validUntilUtc: string } {
  return { sessionId: session.sessionId, senderId: session.senderId, validUntilUtc: foreignDateTime(session.validUntilMs, offset) };
}

/**
 * `2026-11-25T13:42:56.1234567` (UTC, no zone designator, seven fraction digits, as .NET writes a
 * UTC DateTime), or the same instant written at `+04:00`.
 */
export function foreignDateTime(ms: number, offset: '' | '+04:00'): string {
  const shifted = new Date(ms + (offset === '' ? 0 : 4 * 3600_000)).toISOString(); // 2026-11-25T13:42:56.123Z
  return `${shifted.slice(0, 23)}4567${offset}`;
}

/**
 * Refuses a call whose session is missing, unknown or expired: the envelope's `401
 * InvalidSession` (thrown, for the error handler), or the mode's own 401 answer.
 */
export function refuseSession(dialect: ContractDialect, reply: FastifyReply): FastifyReply {
  const raw = dialect.invalidSessionAnswer();
  if (raw === undefined) throw new SandboxApiError('InvalidSession', 'the X-Session header is missing, unknown or expired');
  void reply.code(401);
  if (raw.contentType !== undefined) void reply.header('content-type', raw.contentType);
  return reply.send(raw.body);
}
