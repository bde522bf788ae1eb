// The intake's letter in the raw store (`letter/<id>`, write-once), beside the checkpoint in
// Redis: after a Redis loss it is what says which letter the intake has. The marker wins: a run
// starts from the letter it names, a letter id is written there before it is ever submitted, and
// a draft the marker does not name is never submitted (docs/design.md §13).
import { OwnershipLost } from '../errors.js';
import type { IntakeMarkers, LetterMarker } from '../intake/markers.js';
import type { Checkpoint } from './submit-letter.js';

export async function markedCheckpoint(
  inner: Checkpoint,
  markers: IntakeMarkers,
  intakeId: string,
  clock: () => number,
  /** The Sender API the letter goes to, kept with its id; and the marker when the caller read it already. */
  api: { readonly baseUrl?: string | undefined; readonly read?: { readonly marker: LetterMarker | undefined } | undefined } = {},
): Promise<Checkpoint> {
  const apiBaseUrl = api.baseUrl;
  let held = api.read === undefined ? await markers.letter(intakeId) : api.read.marker;
  if (held === undefined && inner.letterId !== undefined) {
    // Redis names a letter the store does not (recorded before markers, or a stop between the two writes).
    held = await markers.putLetter({ v: 1, intakeId, letterId: inner.letterId, draftStatus: inner.draftStatus, apiBaseUrl, at: clock() });
  }
  return {
    letterId: held?.letterId ?? inner.letterId,
    draftStatus: held === undefined ? inner.draftStatus : held.draftStatus,
    draftRequestedAt: inner.draftRequestedAt,
    markDraftRequested: (at) => inner.markDraftRequested(at),
    async recordLetterId(letterId, draftStatus) {
      const recorded = await inner.recordLetterId(letterId, draftStatus);
      if (recorded === 'taken') return recorded;
      const marked = await markers.putLetter({ v: 1, intakeId, letterId, draftStatus, apiBaseUrl, at: clock() });
      if (marked.letterId !== letterId) {
        // Another run's letter is in the store: that one is the intake's, this draft stays unsubmitted.
        throw new OwnershipLost(`intake ${intakeId} has letter ${marked.letterId} in the raw store, not ${letterId}`);
      }
      return recorded;
    },
    recordStrayDraft: (stray) => inner.recordStrayDraft(stray),
  };
}
