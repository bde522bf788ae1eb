// Which Sender API an intake's letter goes to (its base URL). A sender's `senderApiUrl` (or
// SENDER_API_URL) is read once, when the intake first needs the API, and recorded on the intake
// before the first call; the letter marker keeps it with the letter id. From then on the recorded
// one is used, so a reload that changes `senderApiUrl` never moves an intake in flight (the other
// API would get a second letter). An intake whose draft was requested before base URLs were
// recorded went to SENDER_API_URL, the one API there was.
import { OwnershipLost } from '../errors.js';
import type { LetterMarker } from '../intake/markers.js';
import type { IntakeRecord } from '../intake/record.js';
import type { Sender } from '../senders/directory.js';
import type { Owner } from './ownership.js';

export interface ApiChoice {
  readonly baseUrl: string;
  /** True when no earlier run recorded it: it must be recorded before the first call. */
  readonly fresh: boolean;
}

/** Pure: the recorded base URL wins; then SENDER_API_URL for a letter begun before base URLs were recorded; then the sender's. */
export function chooseApi(
  record: Pick<IntakeRecord, 'apiBaseUrl' | 'letterId' | 'draftRequestedAt'>,
  marker: Pick<LetterMarker, 'apiBaseUrl'> | undefined,
  sender: Sender,
  baseUrlOf: (sender: Sender | undefined) => string,
): ApiChoice {
  const recorded = marker?.apiBaseUrl ?? record.apiBaseUrl;
  if (recorded !== undefined) return { baseUrl: recorded, fresh: false };
  const begun = marker !== undefined || record.letterId !== undefined || record.draftRequestedAt !== undefined;
  if (begun) return { baseUrl: baseUrlOf(undefined), fresh: false };
  return { baseUrl: baseUrlOf(sender), fresh: true };
}

/** Records a fresh choice on the intake (fenced by the job's lock token) before any call to that API. */
export async function recordApiChoice(owner: Owner, choice: ApiChoice): Promise<void> {
  if (!choice.fresh) return;
  const result = await owner.store.checkpoint(owner.intakeId, owner.token, { apiBaseUrl: choice.baseUrl }, 'apiBaseUrl');
  if (result === 'conflict') throw new OwnershipLost(`intake ${owner.intakeId} names another Sender API already`);
  if (result !== 'ok') throw new OwnershipLost(`intake ${owner.intakeId} is no longer held by this job run`);
}
