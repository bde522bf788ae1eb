// One message key, from the SMTP session to the job id to the record to the letter.
// The id is derived from the message itself so that a re-delivery finds the first intake:
// From + Message-ID when the message has one, otherwise the bytes.
import { createHash } from 'node:crypto';

export function intakeIdFor(identity: { from: string; messageId: string; sha256: string }): string {
  const key = identity.messageId === ''
    ? `bytes\n${identity.sha256}`
    : `mid\n${identity.from.toLowerCase()}\n${identity.messageId}`;
  // A letter prefix keeps BullMQ from reading the id as a number; no ':' by construction.
  return `in${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}
