// One message key, from the SMTP session to the job id to the record to the letter.
// The id is the message's content digest (content-digest.ts): what the sender wrote, so a
// re-delivery, a relay's new signature or another Received chain finds the first intake, and a
// corrected letter (another Subject, Date or PDF) is a new one. The digest covers From and
// Message-ID, with or without a Message-ID. The scheme version is in the digest, so ids change
// with the scheme; a stored id is kept, never recomputed.
import type { ContentDigest } from './content-digest.js';

export function intakeIdFor(digest: ContentDigest): string {
  // A letter prefix keeps BullMQ from reading the id as a number; no ':' by construction.
  return `in${digest.sha256.slice(0, 24)}`;
}
