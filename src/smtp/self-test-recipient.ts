// RCPT TO with the self-test address (docs/sender-policy.md): a message to it is a self-test,
// never a letter, so an envelope naming both it and a processing address is refused at the
// second RCPT, one at a time (RFC 5321 §4.5.3.1.10: 452, and the client sends the rest apart).
// Pure: the address, the recipients accepted so far and the addresses in, a verdict out.
import { IntakeError } from '../errors.js';
import { isProcessingAddress } from './recipient-policy.js';

export interface RecipientAddresses {
  readonly processing: readonly string[];
  /** The self-test address; undefined: no self-test. */
  readonly selfTest: string | undefined;
  /** A sender's own processing address (SENDERS_FILE `processingAddresses`): a letter's too. */
  readonly isSenderAddress?: ((address: string) => boolean) | undefined;
}

export type RecipientKind = 'letter' | 'self-test';

export function recipientKind(address: string, addresses: RecipientAddresses): RecipientKind | undefined {
  const wanted = address.trim().toLowerCase();
  if (addresses.selfTest !== undefined && wanted === addresses.selfTest) return 'self-test';
  const letter = isProcessingAddress(wanted, addresses.processing) || addresses.isSenderAddress?.(wanted) === true;
  return letter ? 'letter' : undefined;
}

/** undefined: accept the recipient; else the refusal to answer. */
export function judgeRecipient(address: string, accepted: readonly string[], addresses: RecipientAddresses): IntakeError | undefined {
  const kind = recipientKind(address, addresses);
  if (kind === undefined) return new IntakeError('RecipientNotAccepted', `<${address}>: no such mailbox here`);
  const mixed = accepted.some((a) => recipientKind(a, addresses) !== kind);
  if (mixed) return new IntakeError('SelfTestWithLetter', 'a self-test travels alone: send it apart from letters, one at a time');
  return undefined;
}
