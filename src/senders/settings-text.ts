// A sender's own settings in words, for the operator (doctor, the intake pages): one phrase per
// setting given, nothing for one left out (the sender is then served as every sender is).
import type { Sender } from './directory.js';

export function settingsPhrases(sender: Sender): string[] {
  const phrases: string[] = [];
  if (sender.dkimSelectors !== undefined) phrases.push(`DKIM selectors ${sender.dkimSelectors.join(', ')}`);
  const own = sender.processingAddresses ?? [];
  if (own.length > 0) phrases.push(`own addresses ${own.join(', ')}`);
  if (sender.sharedAddress === false) phrases.push('refuses the shared address');
  const limits = sender.limits;
  if (limits !== undefined) {
    const named = [
      limits.messagesPerHour === undefined ? undefined : `${limits.messagesPerHour} messages/hour`,
      limits.bytesPerHour === undefined ? undefined : `${limits.bytesPerHour} bytes/hour`,
      limits.queuedIntakes === undefined ? undefined : `${limits.queuedIntakes} queued intakes`,
    ].filter((p) => p !== undefined);
    phrases.push(`limits ${named.join(', ')}`);
  }
  if (sender.senderApiUrl !== undefined) phrases.push(`Sender API ${sender.senderApiUrl}`);
  if (sender.dryRun === true) phrases.push('dry run: nothing is sent to the Sender API');
  return phrases;
}

/** All of a sender's settings in one line ('served as every sender' when it has none). */
export function settingsLine(sender: Sender): string {
  const phrases = settingsPhrases(sender);
  return phrases.length === 0 ? 'no settings of its own: served as every sender' : phrases.join('; ');
}
