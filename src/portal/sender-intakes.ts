// One sender's intakes, scoped in the store layer: ids come only from the From index of the
// sender's registered addresses, and a record is shown only when it belongs to the sender (the
// worker's senderId, or before the worker ran, a From among the sender's addresses). Another
// sender's intake is "not found", never "forbidden".
import type { IntakeRecord } from '../intake/record.js';
import { normalizeMessageId } from '../intake/search-index.js';
import type { IntakeStore } from '../intake/store.js';
import type { Sender } from '../senders/directory.js';

/** Records one list reads at most (the newest). */
export const MAX_LISTED = 200;

export interface IntakeFilter {
  /** A word of the subject, or a Message-ID. */
  readonly q: string | undefined;
  /** Received on or after / before these times (ms). */
  readonly fromMs: number | undefined;
  readonly toMs: number | undefined;
}

export function belongsTo(record: IntakeRecord, sender: Sender): boolean {
  if (record.senderId !== undefined) return record.senderId === sender.senderId;
  return sender.addresses.includes(record.from.toLowerCase());
}

export class SenderIntakes {
  constructor(private readonly store: IntakeStore) {}

  async get(sender: Sender, intakeId: string): Promise<IntakeRecord | undefined> {
    const record = await this.store.get(intakeId);
    return record !== undefined && belongsTo(record, sender) ? record : undefined;
  }

  async list(sender: Sender, filter: IntakeFilter): Promise<IntakeRecord[]> {
    const ids = await this.store.search.fromAddresses(
      sender.addresses,
      filter.fromMs ?? 0,
      filter.toMs ?? Number.MAX_SAFE_INTEGER,
      MAX_LISTED,
    );
    const records = await Promise.all(ids.map((id) => this.get(sender, id)));
    const q = filter.q?.trim().toLowerCase() ?? '';
    return records.filter((r): r is IntakeRecord => r !== undefined && matches(r, q));
  }
}

function matches(record: IntakeRecord, q: string): boolean {
  if (q === '') return true;
  return (
    record.subject.toLowerCase().includes(q) ||
    normalizeMessageId(record.messageId) === normalizeMessageId(q) ||
    record.intakeId === q ||
    record.letterId === q
  );
}
