// The sandbox's letters, in memory (lost on restart). Keeps each document's metadata and
// SHA-256, not its bytes: nothing in the contract reads a document back.
import { createHash, randomUUID } from 'node:crypto';
import { SandboxApiError } from './error-codes.js';
import { type LetterAction, type LetterStatus, nextStatus, planParts, type UploadPart, whyNotEditable } from './letter-rules.js';
import type { LetterBody, ListQuery } from './schemas.js';

export interface DocumentMeta {
  readonly id: string;
  readonly fileName: string;
  readonly mimeType: string;
  readonly sizeBytes: number;
  readonly sha256: string;
}

export interface StoredLetter {
  readonly id: string;
  readonly senderId: string;
  readonly status: LetterStatus;
  readonly title: string;
  readonly description: string;
  readonly genderTargeting: 'All' | 'Male' | 'Female';
  readonly parts: readonly DocumentMeta[];
  readonly createdMs: number;
  readonly updatedMs: number;
  readonly submittedMs: number | undefined;
}

export interface LetterPage {
  readonly items: readonly StoredLetter[];
  readonly page: number;
  readonly pageSize: number;
  readonly total: number;
}

export class LetterStore {
  readonly #letters = new Map<string, StoredLetter>();

  constructor(private readonly clock: () => number) {}

  /** Creates a draft, or updates the sender's draft `body.id`. */
  saveDraft(senderId: string, body: LetterBody): StoredLetter {
    return this.#put(body.id === undefined ? this.#create(senderId, body) : this.#update(senderId, body.id, body));
  }

  /** Submits a new letter, or the sender's draft `body.id` with this content: → PendingApproval. */
  submit(senderId: string, body: LetterBody): StoredLetter {
    const letter = body.id === undefined ? this.#create(senderId, body) : this.#update(senderId, body.id, body);
    if (letter.parts.length === 0) {
      throw new SandboxApiError('InvalidData', 'invalid letter: parts: a submitted letter needs at least one document');
    }
    return this.#put({ ...this.#moved(letter, 'submit'), submittedMs: this.clock() });
  }

  /** The sender's letter; another sender's letter is as absent as a letter that never existed. */
  get(senderId: string, id: string): StoredLetter {
    const letter = this.#letters.get(id);
    if (letter === undefined || letter.senderId !== senderId) throw notFound(id);
    return letter;
  }

  /** The sender's letters, oldest first, one page. */
  list(senderId: string, query: ListQuery): LetterPage {
    const mine = [...this.#letters.values()].filter(
      (l) => l.senderId === senderId && (query.status === undefined || l.status === query.status),
    );
    const start = (query.page - 1) * query.pageSize;
    return { items: mine.slice(start, start + query.pageSize), page: query.page, pageSize: query.pageSize, total: mine.length };
  }

  /** Every letter of every sender (operator view). */
  all(): readonly StoredLetter[] {
    return [...this.#letters.values()];
  }

  /** An operator move (approve, reject, start-sending, mark-sent). */
  move(id: string, action: Exclude<LetterAction, 'submit'>): StoredLetter {
    const letter = this.#letters.get(id);
    if (letter === undefined) throw notFound(id);
    return this.#put(this.#moved(letter, action));
  }

  #create(senderId: string, body: LetterBody): StoredLetter {
    const now = this.clock();
    const steps = planParts([], body.parts);
    if (!steps.ok) throw new SandboxApiError('InvalidData', `invalid letter: ${steps.message}`);
    return {
      id: randomUUID(),
      senderId,
      status: 'Draft',
      title: body.title,
      description: body.description,
      genderTargeting: body.genderTargeting,
      parts: steps.value.map((step) => ('upload' in step ? uploaded(step.upload) : missing(step.keep))),
      createdMs: now,
      updatedMs: now,
      submittedMs: undefined,
    };
  }

  #update(senderId: string, id: string, body: LetterBody): StoredLetter {
    const letter = this.get(senderId, id);
    const refusal = whyNotEditable(id, letter.status);
    if (refusal !== undefined) throw new SandboxApiError('InvalidData', refusal);
    const steps = planParts(
      letter.parts.map((p) => p.id),
      body.parts,
    );
    if (!steps.ok) throw new SandboxApiError('InvalidData', `invalid letter: ${steps.message}`);
    const byId = new Map(letter.parts.map((p) => [p.id, p] as const));
    return {
      ...letter,
      title: body.title,
      description: body.description,
      genderTargeting: body.genderTargeting,
      parts: steps.value.map((step) => ('upload' in step ? uploaded(step.upload) : (byId.get(step.keep) ?? missing(step.keep)))),
      updatedMs: this.clock(),
    };
  }

  #moved(letter: StoredLetter, action: LetterAction): StoredLetter {
    const next = nextStatus(letter.status, action);
    if (!next.ok) throw new SandboxApiError('InvalidData', `letter ${letter.id}: ${next.message}`);
    return { ...letter, status: next.value, updatedMs: this.clock() };
  }

  #put(letter: StoredLetter): StoredLetter {
    this.#letters.set(letter.id, letter);
    return letter;
  }
}

function uploaded(part: UploadPart): DocumentMeta {
  const bytes = Buffer.from(part.base64Data, 'base64');
  return {
    id: randomUUID(),
    fileName: part.fileName,
    mimeType: part.mimeType,
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

/** planParts only keeps ids it was given, so this cannot happen; it fails loudly if it ever does. */
function missing(id: string): never {
  throw new Error(`document ${id} vanished between planning and applying`);
}

function notFound(id: string): SandboxApiError {
  return new SandboxApiError('EntityNotFound', `letter ${id} was not found`);
}
