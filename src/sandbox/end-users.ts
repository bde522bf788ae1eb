// The end users receipts and invoices are for. A request names its end user by one or more
// identifiers (endUserId, emiratesId, email, mobileNumber); the sandbox keeps one registry for all
// senders, built as requests arrive:
//   - identifiers that name nobody yet make a new end user, known from then on by all of them;
//   - identifiers that name one end user pick it, and the request's new identifiers join it;
//   - identifiers that name different end users are 400 InvalidData;
//   - an endUserId the registry never issued is 404 EntityNotFound.
import { randomUUID } from 'node:crypto';
import { SandboxApiError } from './error-codes.js';

export const IDENTIFIER_KINDS = ['endUserId', 'emiratesId', 'email', 'mobileNumber'] as const;
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

/** A request's identifiers, already normalised by the schema. */
export type EndUserIdentifiers = Partial<Record<IdentifierKind, string>>;

export interface Named {
  readonly kind: IdentifierKind;
  readonly value: string;
  /** The end user this identifier names today, if any. */
  readonly endUserId: string | undefined;
}

export type EndUserVerdict = { readonly existing: string } | { readonly create: true } | { readonly refuse: SandboxApiError };

/** Which end user a request's identifiers name (pure). */
export function judgeEndUser(named: readonly Named[]): EndUserVerdict {
  if (named.length === 0) {
    return { refuse: new SandboxApiError('InvalidData', `give at least one end-user identifier: ${IDENTIFIER_KINDS.join(', ')}`) };
  }
  const unknownId = named.find((n) => n.kind === 'endUserId' && n.endUserId === undefined);
  if (unknownId !== undefined) return { refuse: new SandboxApiError('EntityNotFound', `end user ${unknownId.value} was not found`) };
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
      return value === undefined ? [] : [{ kind, value, endUserId: this.#byIdentifier.get(key(kind, value)) }];
    });
    const verdict = judgeEndUser(named);
    if ('refuse' in verdict) throw verdict.refuse;
    const endUserId = 'existing' in verdict ? verdict.existing : randomUUID();
    this.#byIdentifier.set(key('endUserId', endUserId), endUserId);
    for (const n of named) this.#byIdentifier.set(key(n.kind, n.value), endUserId);
    return endUserId;
  }
}

function key(kind: IdentifierKind, value: string): string {
  return `${kind}:${value}`;
}
