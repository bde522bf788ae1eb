// One message key, from the SMTP session to the job id to the record to the letter.
// The id is derived from the message itself so that a re-delivery finds the first intake:
// From + Message-ID when the message has one, otherwise its header block. An accepted message
// carries a passing DKIM signature over its whole body, and that signature's header holds the
// body hash (bh=), so the header block stands for the whole message without reading it twice.
import { createHash } from 'node:crypto';

export function intakeIdFor(identity: { from: string; messageId: string; headerBlock: Buffer }): string {
  const key = identity.messageId === ''
    ? `head\n${createHash('sha256').update(identity.headerBlock).digest('hex')}`
    : `mid\n${identity.from.toLowerCase()}\n${identity.messageId}`;
  // A letter prefix keeps BullMQ from reading the id as a number; no ':' by construction.
  return `in${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}
