// What the raw store's markers say (docs/design.md §13): three small JSON objects keyed by
// intake id beside the blobs, so that after a Redis loss the store alone tells which messages
// were answered 250, which letter each one has, and how each ended.
//   accepted/<id>  written after Redis (and its replicas) acknowledged the record and the job,
//                  before the 250: present means "may have been answered 250", absent "certainly not"
//   letter/<id>    write-once, after the draft answer and before any submit: the intake's letter
//   ended/<id>     after the outcome is recorded in Redis, before the job completes
import { z } from 'zod';
import type { RawStore } from '../raw-store/raw-store.js';
import type { MarkerRetentionDeps } from '../raw-store/sweep.js';
import { fromHash, type NewIntake, simulatedLetterSchema, toHashFields } from './record.js';

const MARKER_VERSION = 1;

const acceptedSchema = z.object({
  v: z.literal(MARKER_VERSION),
  intakeId: z.string(),
  blobKey: z.string(),
  /** Our Received-SPF and Authentication-Results lines, put in front of the blob when it is read. */
  rawHeaders: z.string(),
  /** When the 250 was about to be sent (ms since the epoch). */
  acceptedAt: z.number(),
  /**
   * The record's fields as the listener wrote them (record.ts): envelope, client address, HELO,
   * authentication results, From, Message-ID, the content digest and its scheme, the time received.
   */
  record: z.record(z.string(), z.string()),
});
export type AcceptedMarker = z.infer<typeof acceptedSchema>;

const letterSchema = z.object({
  v: z.literal(MARKER_VERSION),
  intakeId: z.string(),
  letterId: z.string(),
  /** Absent for a letter recorded before draft statuses were. */
  draftStatus: z.string().optional(),
  /** The Sender API the letter is on; absent for a letter recorded when there was one API. */
  apiBaseUrl: z.string().optional(),
  at: z.number(),
});
export type LetterMarker = z.infer<typeof letterSchema>;

export const ENDED_OUTCOMES = ['submitted', 'rejected', 'failed', 'simulated'] as const;
const endedSchema = z.object({
  v: z.literal(MARKER_VERSION),
  intakeId: z.string(),
  outcome: z.enum(ENDED_OUTCOMES),
  letterId: z.string().optional(),
  letterStatus: z.string().optional(),
  senderId: z.string().optional(),
  reasonCode: z.string().optional(),
  reason: z.string().optional(),
  errorCode: z.string().optional(),
  /** A dry run's letter (outcome `simulated`): what would have been sent. */
  simulatedLetter: simulatedLetterSchema.optional(),
  /** The notice's state when the outcome was recorded ('queued', or why none is due). */
  notice: z.string().optional(),
  at: z.number(),
});
export type EndedMarker = z.infer<typeof endedSchema>;

export function acceptedMarker(intake: NewIntake, blobKey: string, rawHeaders: string, acceptedAt: number): AcceptedMarker {
  return { v: MARKER_VERSION, intakeId: intake.intakeId, blobKey, rawHeaders, acceptedAt, record: toHashFields(intake) };
}

/** The intake an accepted marker describes, as the listener handed it to the store. */
export function intakeOfMarker(marker: AcceptedMarker): NewIntake | undefined {
  const record = fromHash({ ...marker.record, state: 'received' });
  if (record === undefined) return undefined;
  const { state: _s, timeline: _t, attempts: _a, notices: _n, rawKey: _k, rawHeaders: _h, ...intake } = record;
  return intake;
}

/** What marker retention asks the intake side (raw-store/sweep.ts): whether an intake's end lets its markers go. */
export function markerRetention(markers: IntakeMarkers): Pick<MarkerRetentionDeps, 'mayExpire' | 'endedAt'> {
  return {
    // A failed intake's markers stay: it waits for a replay.
    mayExpire: async (intakeId) => {
      const outcome = (await markers.ended(intakeId))?.outcome;
      return outcome === 'submitted' || outcome === 'rejected' || outcome === 'simulated';
    },
    endedAt: async (intakeId) => (await markers.ended(intakeId))?.at,
  };
}

/** The markers of one intake, parsed; a marker that does not parse is an error, never an absence. */
export class IntakeMarkers {
  constructor(private readonly store: RawStore) {}

  async putAccepted(marker: AcceptedMarker): Promise<void> {
    await this.store.putMarker('accepted', marker.intakeId, JSON.stringify(marker), 'replace');
  }

  /** Writes the marker unless one exists (a re-delivery keeps the first acceptance's). */
  async putAcceptedIfAbsent(marker: AcceptedMarker): Promise<void> {
    await this.store.putMarker('accepted', marker.intakeId, JSON.stringify(marker), 'once');
  }

  /** Records the intake's letter once; the letter already recorded wins ('exists' with it). */
  async putLetter(marker: LetterMarker): Promise<LetterMarker> {
    const answer = await this.store.putMarker('letter', marker.intakeId, JSON.stringify(marker), 'once');
    if (answer === 'written') return marker;
    const held = await this.letter(marker.intakeId);
    if (held === undefined) throw new Error(`the letter marker of ${marker.intakeId} exists but cannot be read back`);
    return held;
  }

  async putEnded(marker: EndedMarker): Promise<void> {
    await this.store.putMarker('ended', marker.intakeId, JSON.stringify(marker), 'replace');
  }

  /** A replay reopens a failed intake: its `failed` end no longer stands. */
  async clearEnded(intakeId: string): Promise<void> {
    await this.store.deleteMarker('ended', intakeId);
  }

  async accepted(intakeId: string): Promise<AcceptedMarker | undefined> {
    return this.#read('accepted', intakeId, acceptedSchema);
  }

  async letter(intakeId: string): Promise<LetterMarker | undefined> {
    return this.#read('letter', intakeId, letterSchema);
  }

  async ended(intakeId: string): Promise<EndedMarker | undefined> {
    return this.#read('ended', intakeId, endedSchema);
  }

  async #read<T>(kind: 'accepted' | 'letter' | 'ended', intakeId: string, schema: z.ZodType<T>): Promise<T | undefined> {
    const text = await this.store.getMarker(kind, intakeId);
    if (text === undefined) return undefined;
    return schema.parse(JSON.parse(text));
  }
}
