// The end users receipts and invoices are for. A request names its end user by one or more of the
// contract's three identifiers (endUserServiceId, endUserIdpId, endUserEmiratesId). The contract
// shows no end-user registration, so any well-formed identifier is accepted; the sandbox keeps
// one registry for all senders, built as requests arrive, to answer the same endUserId for the
// same person:
//   - an endUserServiceId is the end user's id in the service: it names that end user;
//   - other identifiers that name nobody yet make a new end user, known from then on by all of them;
//   - identifiers that name one end user pick it, and the request's new identifiers join it;
//   - identifiers that name different end users are 400 InvalidData.
import { randomUUID } from 'node:crypto';
import { SandboxApiError } from './error-codes.js';

export const IDENTIFIER_KINDS = ['endUserServiceId', 'endUserIdpId', 'endUserEmiratesId'] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

/** A request's identifiers, as sent. */
export type EndUserIdentifiers = Partial<Record<IdentifierKind, string>>;

export interface Named {
  readonly kind: IdentifierKind;
  readonly value: string;
  /** The end user this identifier names today, if any (an endUserServiceId always names one). */
  readonly endUserId: string | undefined;
}

export type EndUserVerdict = { readonly existing: string } | { readonly create: true } | { readonly refuse: SandboxApiError };

/** Which end user a request's identifiers name (pure). */
export function judgeEndUser(named: readonly Named[]): EndUserVerdict {
  if (named.length === 0) {
    return { refuse: new SandboxApiError('InvalidData', `give one of ${IDENTIFIER_KINDS.join(', ')}`) };
  }
  const users = new Set(named.flatMap((n) => (n.endUserId === undefined ? [] : [n.endUserId])));
  if (users.size > 1) {
    const which = named.filter((n) => n.endUserId !== undefined).map((n) => `${n.kind} names end user ${n.endUserId ?? ''}`);
    return { refuse: new SandboxApiError('InvalidData', `the end-user identifiers name different end users: ${which.join('; ')}`) };
  }
  const [only] = users;
  return only === undefined ? { create: true } : { existing: only };
}

export class EndUserRegistry {
  readonly #byIdentifier = new Map<string, string>();

  /** The end user the identifiers name (made or extended as the rules above say), or throws. */
  resolve(identifiers: EndUserIdentifiers): string {
    const named: Named[] = IDENTIFIER_KINDS.flatMap((kind) => {
      const value = identifiers[kind];
      if (value === undefined) return [];
      const endUserId = kind === 'endUserServiceId' ? canonical(kind, value) : this.#byIdentifier.get(key(kind, value));
      return [{ kind, value, endUserId }];
    });
    const verdict = judgeEndUser(named);
    if ('refuse' in verdict) throw verdict.refuse;
    const endUserId = 'existing' in verdict ? verdict.existing : randomUUID();
    for (const n of named) this.#byIdentifier.set(key(n.kind, n.value), endUserId);
    return endUserId;
  }
}

/** Identifiers compare as the same person however they are written: a guid in lower case, an Emirates ID without dashes. */
function canonical(kind: IdentifierKind, value: string): string {
  if (kind === 'endUserServiceId') return value.toLowerCase();
  if (kind === 'endUserEmiratesId') return value.replaceAll('-', '');
  return value;
}

function key(kind: IdentifierKind, value: string): string {
  return `${kind}:${canonical(kind, value)}`;
}
