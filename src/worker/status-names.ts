// Letter status names the worker meets. A name outside the contract's four is logged once, for an
// operator reading what the real API says (what a status proves is letter-statuses.ts's to judge).
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
