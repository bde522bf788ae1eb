// Senders' own processing addresses (SENDERS_FILE processingAddresses, sharedAddress), judged
// once authentication named the From: mail to a sender's own address must come from that
// sender, and a sender that refuses the shared addresses hears its own instead. The replies name
// neither sender: that an address exists is visible (as any mailbox's is), whose it is, is not.
import { IntakeError } from '../errors.js';
import type { Sender } from '../senders/directory.js';

export interface SenderAddresses {
  /** The sender of a registered From address, if any. */
  byAddress(address: string): Sender | undefined;
  /** The sender whose own processing address this is, if any. */
  byProcessingAddress(address: string): Sender | undefined;
}

/** Pure: the refusal for the envelope's recipients given the authenticated From, or undefined. */
export function judgeRecipients(
  from: string,
  rcptTo: readonly string[],
  senders: SenderAddresses,
  sharedAddresses: readonly string[],
): IntakeError | undefined {
  const sender = from === '' ? undefined : senders.byAddress(from);
  for (const recipient of rcptTo) {
    const owner = senders.byProcessingAddress(recipient);
    if (owner !== undefined && owner.senderId !== sender?.senderId) {
      return new IntakeError('NotTheAddressOwner', `<${recipient}> takes letters only from the sender it belongs to`);
    }
  }
  if (sender === undefined || sender.sharedAddress !== false) return undefined;
  const shared = rcptTo.find((r) => sharedAddresses.includes(r.toLowerCase()));
  if (shared === undefined) return undefined;
  const own = (sender.processingAddresses ?? []).map((a) => `<${a}>`).join(', ');
  return new IntakeError('SharedAddressRefused', `<${shared}> does not take your letters; send them to ${own}`);
}
