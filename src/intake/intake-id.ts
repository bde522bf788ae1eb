// One message key, from the SMTP session to the job id to the record to the letter.
// The id is derived from the message itself so that a re-delivery finds the first intake:
// From + Message-ID + a digest of the stored bytes. The content belongs to the identity because
// some systems reuse a Message-ID for a corrected letter, which must not be taken for a
// re-delivery and dropped. A message without a Message-ID is known by its content alone (the
// digest covers its header block too).
import { createHash } from 'node:crypto';

export function intakeIdFor(identity: { from: string; messageId: string; contentSha256: string }): string {
  const key =
    identity.messageId === ''
      ? `content\n${identity.contentSha256}`
      : `mid\n${identity.from.toLowerCase()}\n${identity.messageId}\n${identity.contentSha256}`;
  // A letter prefix keeps BullMQ from reading the id as a number; no ':' by construction.
  return `in${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
}
