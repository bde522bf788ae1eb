// Receipts and invoices, in memory (lost on restart), with their documents' bytes (their URLs
// serve them). A sender sees only its own; a `reference` is unique per sender and kind: the same
// request again answers the first record, the same reference with other content is refused.
import { randomUUID } from 'node:crypto';
import type { BillingPart, InvoiceBody, LineItem, ReceiptBody } from './billing-schemas.js';
import { identifiersOf } from './billing-schemas.js';
import { add, type Decimal, decimalText, multiply, sameValue, ZERO } from './decimal.js';
import type { StoredDocument } from './document-store.js';
import type { EndUserRegistry } from './end-users.js';
import { SandboxApiError } from './error-codes.js';

export type BillingKind = 'receipt' | 'invoice';

export interface PricedLineItem extends LineItem {
  readonly amount: Decimal;
}

export interface BillingRecord {
  readonly kind: BillingKind;
  readonly id: string;
  readonly senderId: string;
  readonly endUserId: string;
  readonly reference: string | undefined;
  readonly currency: string;
  readonly lineItems: readonly PricedLineItem[];
  readonly totalAmount: Decimal | undefined;
  readonly dueDate: string | undefined;
  readonly documents: readonly StoredDocument[];
  readonly createdMs: number;
  /** The request's content, canonical: two requests with the same reference compare by it. */
  readonly fingerprint: string;
}

export type BillingBody = ({ readonly kind: 'receipt' } & ReceiptBody) | ({ readonly kind: 'invoice' } & InvoiceBody);

export class BillingStore {
  readonly #records = new Map<string, BillingRecord>();
  readonly #byReference = new Map<string, string>();

  constructor(
    private readonly clock: () => number,
    private readonly endUsers: EndUserRegistry,
  ) {}

  /** Creates a receipt or an invoice, or answers the one made by the same request before. */
  create(senderId: string, body: BillingBody): BillingRecord {
    const lineItems = (body.lineItems ?? []).map((item) => ({ ...item, amount: multiply(item.quantity, item.unitPrice) }));
    const sum = lineItems.reduce((total, item) => add(total, item.amount), ZERO);
    if (body.totalAmount !== undefined && lineItems.length > 0 && !sameValue(body.totalAmount, sum)) {
      throw new SandboxApiError(
        'InvalidData',
        `invalid ${body.kind}: totalAmount: ${decimalText(body.totalAmount)} is not the sum of the line items (${decimalText(sum)})`,
      );
    }
    const fingerprint = fingerprintOf(body);
    const referenceKey = body.reference === undefined ? undefined : JSON.stringify([senderId, body.kind, body.reference]);
    const earlierId = referenceKey === undefined ? undefined : this.#byReference.get(referenceKey);
    const earlier = earlierId === undefined ? undefined : this.#records.get(earlierId);
    if (earlier !== undefined) {
      if (earlier.fingerprint === fingerprint) return earlier;
      throw new SandboxApiError(
        'InvalidData',
        `reference ${body.reference ?? ''} is already used by ${body.kind} ${earlier.id} with other content; use a new reference`,
      );
    }
    const record: BillingRecord = {
      kind: body.kind,
      id: randomUUID(),
      senderId,
      endUserId: this.endUsers.resolve(identifiersOf(body)),
      reference: body.reference,
      currency: body.currency,
      lineItems,
      totalAmount: body.totalAmount ?? (lineItems.length > 0 ? sum : undefined),
      dueDate: body.kind === 'invoice' ? body.dueDate : undefined,
      documents: (body.parts ?? []).map(storedDocument),
      createdMs: this.clock(),
      fingerprint,
    };
    this.#records.set(record.id, record);
    if (referenceKey !== undefined) this.#byReference.set(referenceKey, record.id);
    return record;
  }

  /** The sender's record of that kind; another sender's is as absent as one that never existed. */
  get(senderId: string, kind: BillingKind, id: string): BillingRecord {
    const record = this.#records.get(id);
    if (record === undefined || record.senderId !== senderId || record.kind !== kind) {
      throw new SandboxApiError('EntityNotFound', `${kind} ${id} was not found`);
    }
    return record;
  }
}

function storedDocument(part: BillingPart): StoredDocument {
  return { fileName: part.fileName, mimeType: part.mimeType, bytes: part.bytes, sha256: part.sha256 };
}

/** The request's content with defaults applied and amounts by value, as one string. */
function fingerprintOf(body: BillingBody): string {
  return JSON.stringify({
    kind: body.kind,
    ids: identifiersOf(body),
    currency: body.currency,
    lineItems: (body.lineItems ?? []).map((i) => [i.description, decimalText(i.quantity), decimalText(i.unitPrice)]),
    totalAmount: body.totalAmount === undefined ? null : decimalText(body.totalAmount),
    dueDate: body.kind === 'invoice' ? (body.dueDate ?? null) : null,
    parts: (body.parts ?? []).map((p) => [p.fileName, p.mimeType, p.sha256]),
  });
}
