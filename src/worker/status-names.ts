// Letter status names the worker meets. The contract names no status the gateway may rely on
// (submit-letter.ts decides through the recorded draft status alone), so a name outside the ones
// our own documentation lists is logged once, for an operator reading what the real API says.
// The set of names already logged is bounded: an API inventing names cannot grow it forever.
import type { Logger } from '../log.js';

const DOCUMENTED = new Set(['PendingApproval', 'Approved', 'Sending', 'Sent']);
const MAX_NAMES = 64;
const logged = new Set<string>();

export function noteStatusName(name: string | undefined, log: Logger): void {
  if (name === undefined || DOCUMENTED.has(name) || logged.has(name) || logged.size >= MAX_NAMES) return;
  logged.add(name);
  log.info({ event: 'sender_api.status_name', status: name }, `the Sender API shows a letter status named ${JSON.stringify(name)}`);
}
