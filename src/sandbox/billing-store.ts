// Receipts and invoices, in memory (lost on restart), stored as sent, with their documents' bytes
// (a receipt's document URLs serve them). A sender sees only its own; a `reference` is unique per
// sender and kind: the same request again answers the first record, the same reference with other
// content is refused.
import { randomUUID } from 'node:crypto';
import type { BillingPart, InvoiceBody, ReceiptBody } from './billing-schemas.js';
import { identifiersOf } from './billing-schemas.js';
import type { StoredDocument } from './document-store.js';
import type { EndUserRegistry } from './end-users.js';
import { SandboxApiError } from './error-codes.js';

export type BillingKind = 'receipt' | 'invoice';

interface RecordFields {
  readonly id: string;
  readonly senderId: string;
  readonly endUserId: string;
  readonly documents: readonly StoredDocument[];
  readonly createdMs: number;
  /** The request's content, canonical: two requests with the same reference compare by it. */
  readonly fingerprint: string;
}

export interface ReceiptRecord extends RecordFields {
  readonly kind: 'receipt';
  readonly body: ReceiptBody;
}

export interface InvoiceRecord extends RecordFields {
  readonly kind: 'invoice';
  readonly body: InvoiceBody;
}

export type BillingRecord = ReceiptRecord | InvoiceRecord;

export class BillingStore {
  readonly #receipts = new Map<string, ReceiptRecord>();
  readonly #invoices = new Map<string, InvoiceRecord>();
  /** [senderId, kind, reference] → id. */
  readonly #byReference = new Map<string, string>();

  constructor(
    private readonly clock: () => number,
    private readonly endUsers: EndUserRegistry,
  ) {}

  /** Creates a receipt, or answers the one made by the same request before. */
  createReceipt(senderId: string, body: ReceiptBody): ReceiptRecord {
    return this.#create(this.#receipts, senderId, 'receipt', body, (fields) => ({ ...fields, kind: 'receipt', body }));
  }

  /** Creates an invoice, or answers the one made by the same request before. */
  createInvoice(senderId: string, body: InvoiceBody): InvoiceRecord {
    return this.#create(this.#invoices, senderId, 'invoice', body, (fields) => ({ ...fields, kind: 'invoice', body }));
  }

  /** The sender's invoice; another sender's is as absent as one that never existed (and so is a receipt's id). */
  invoice(senderId: string, id: string): InvoiceRecord {
    const record = this.#invoices.get(id);
    if (record === undefined || record.senderId !== senderId) throw new SandboxApiError('EntityNotFound', `invoice ${id} was not found`);
    return record;
  }

  #create<R extends BillingRecord>(
    records: Map<string, R>,
    senderId: string,
    kind: BillingKind,
    body: ReceiptBody | InvoiceBody,
    make: (fields: RecordFields) => R,
  ): R {
    const fingerprint = fingerprintOf(kind, body);
    const referenceKey = body.reference === undefined ? undefined : JSON.stringify([senderId, kind, body.reference]);
    const earlierId = referenceKey === undefined ? undefined : this.#byReference.get(referenceKey);
    const earlier = earlierId === undefined ? undefined : records.get(earlierId);
    if (earlier !== undefined) {
      if (earlier.fingerprint === fingerprint) return earlier;
      throw new SandboxApiError(
        'InvalidData',
        `reference ${body.reference ?? ''} is already used by ${kind} ${earlier.id} with other content; use a new reference`,
      );
    }
    const record = make({
      id: randomUUID(),
      senderId,
      endUserId: this.endUsers.resolve(identifiersOf(body)),
      documents: (body.parts ?? []).map(storedDocument),
      createdMs: this.clock(),
      fingerprint,
    });
    records.set(record.id, record);
    if (referenceKey !== undefined) this.#byReference.set(referenceKey, record.id);
    return record;
  }
}

function storedDocument(part: BillingPart): StoredDocument {
  return { fileName: part.fileName, mimeType: part.mimeType, bytes: part.bytes, sha256: part.sha256 };
}

/** The request's content with defaults applied, a document by its name, type and hash, as one string. */
function fingerprintOf(kind: BillingKind, body: ReceiptBody | InvoiceBody): string {
  const { parts, ...rest } = body;
  const fields = Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([kind, fields, (parts ?? []).map((p) => [p.fileName, p.mimeType, p.sha256])]);
}
