// The documents of receipts, served at /sandbox/documents/{token} while their URL
// lives. Each answer that shows a document issues a new URL (an unguessable token) valid for
// DOCUMENT_URL_TTL_MS on the injected clock; after that the URL is 404 EntityNotFound.
import { randomUUID } from 'node:crypto';
import type { DocumentType } from './file-type.js';

/** How long a document URL serves its document (the sandbox's own choice). */
export const DOCUMENT_URL_TTL_MS = 60 * 60 * 1000;

export interface StoredDocument {
  readonly fileName: string;
  readonly mimeType: DocumentType;
  readonly bytes: Buffer;
  readonly sha256: string;
}

export interface DocumentLink {
  readonly token: string;
  readonly expiresMs: number;
}

export class DocumentStore {
  readonly #links = new Map<string, { readonly document: StoredDocument; readonly expiresMs: number }>();

  constructor(private readonly clock: () => number) {}

  /** A new URL token for the document, valid for DOCUMENT_URL_TTL_MS from now. */
  link(document: StoredDocument): DocumentLink {
    const now = this.clock();
    for (const [token, link] of this.#links) if (now >= link.expiresMs) this.#links.delete(token);
    const token = randomUUID();
    const expiresMs = now + DOCUMENT_URL_TTL_MS;
    this.#links.set(token, { document, expiresMs });
    return { token, expiresMs };
  }

  /** The document behind a token that has not expired. */
  open(token: string): StoredDocument | undefined {
    const link = this.#links.get(token);
    if (link === undefined) return undefined;
    if (this.clock() >= link.expiresMs) {
      this.#links.delete(token);
      return undefined;
    }
    return link.document;
  }
}
