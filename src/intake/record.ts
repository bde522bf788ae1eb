// The intake record: what the gateway knows about one accepted message, and its lifecycle.
//
//   received → queued → processing → submitted | rejected | failed | simulated
//                                                         └─ replay → queued
//
// received:   raw message and record stored; the job is not yet confirmed queued.
// queued:     the job is in the queue; the client was told 250.
// processing: a worker holds the job; `owner` is its BullMQ lock token, and only the owner may
//             write checkpoints or the outcome (a worker whose lock lapsed is fenced off).
// submitted:  the letter is submitted (letterId set; letterStatus the status the API showed).
// rejected:   the message breaks a rule (reasonCode + reason); never retried.
// simulated:  a dry run's end (the sender's dryRun): every check passed, nothing went to the
//             Sender API; `simulatedLetter` holds what would have been sent.
// failed:     retries exhausted or an operator must act (errorCode, traceId); replayable.
//
// Stored as one Redis hash: scalar fields as strings, structured fields as JSON, and the
// timeline as one `at.<state>` field per state so a transition is a single HSET.
import { z } from 'zod';
import { type Notices, noticesFromHash } from './notice-fields.js';

export const INTAKE_STATES = ['received', 'queued', 'processing', 'submitted', 'rejected', 'failed', 'simulated'] as const;
export type IntakeState = (typeof INTAKE_STATES)[number];
export const FINAL_STATES: readonly IntakeState[] = ['submitted', 'rejected', 'failed', 'simulated'];

export function isIntakeState(value: string): value is IntakeState {
  return (INTAKE_STATES as readonly string[]).includes(value);
}

const json = <T extends z.ZodType>(schema: T) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

const pdfSchema = z.object({
  fileName: z.string(),
  bytes: z.number(),
  sha256: z.string(),
  /** From the PDF checks (absent with PDF_CHECKS=off). */
  pages: z.number().optional(),
  version: z.string().optional(),
  producer: z.string().optional(),
  /** false: an encrypted file whose objects the /Launch walk could not all read (accepted; see docs/sender-policy.md). */
  launchActionsChecked: z.boolean().optional(),
});
export type PdfRecord = z.infer<typeof pdfSchema>;

/**
 * A draft the Sender API may hold that will never be submitted: one a worker created after it
 * lost the intake (its id), or one an earlier attempt requested that could not be looked for
 * (no id: only the time the request was marked).
 */
export const simulatedLetterSchema = z.object({
  title: z.string(),
  description: z.string(),
  pdfs: z.array(z.object({ fileName: z.string(), sha256: z.string() })),
});
export type SimulatedLetter = z.infer<typeof simulatedLetterSchema>;

const strayDraftSchema = z.object({ letterId: z.string().optional(), requestedAt: z.number().optional(), at: z.number() });
export type StrayDraft = z.infer<typeof strayDraftSchema>;

/**
 * A run of the intake that ended `failed` before a replay (or a re-delivery) queued it again: its
 * timeline after `received`, its error and its attempts. The record keeps the newest 20
 * (scripts/transition-9.lua), oldest first.
 */
const earlierRunSchema = z.object({
  timeline: z.object({
    queued: z.coerce.number().optional(),
    processing: z.coerce.number().optional(),
    failed: z.coerce.number().optional(),
  }),
  errorCode: z.string().optional(),
  reason: z.string().optional(),
  attempts: z.coerce.number().optional(),
});
export type EarlierRun = z.infer<typeof earlierRunSchema>;
/** How many earlier runs a record keeps (the TRANSITION script's bound). */
export const MAX_EARLIER_RUNS = 20;

const storedSchema = z.object({
  intakeId: z.string(),
  state: z.enum(INTAKE_STATES),
  receivedAt: z.coerce.number(),
  envelopeFrom: z.string(),
  envelopeTo: json(z.array(z.string())),
  clientIp: z.string(),
  helo: z.string(),
  from: z.string(),
  subject: z.string(),
  messageId: z.string(),
  sizeBytes: z.coerce.number(),
  /** The content digest the id was made from, and its scheme (content-digest.ts); absent on older records. */
  contentDigest: z.string().optional(),
  contentDigestScheme: z.coerce.number().optional(),
  /** How the message came: absent for e-mail; `web` for a letter uploaded on the sender portal. */
  channel: z.enum(['web']).optional(),
  /** The portal user (e-mail address) who uploaded it (channel web). */
  uploadedBy: z.string().optional(),
  /** Each authentication check's result in words (spf, dkim, alignment, from). */
  auth: json(z.record(z.string(), z.string())),
  /** The message's blob in the raw store (CREATE writes it with the record). */
  rawKey: z.string().optional(),
  /** Our Received-SPF and Authentication-Results lines, put in front of the blob when it is read. */
  rawHeaders: z.string().optional(),
  attempts: z.coerce.number().default(0),
  senderId: z.string().optional(),
  letterId: z.string().optional(),
  /** The status the Sender API gave the letter as a draft: only while it shows this is it submitted. */
  draftStatus: z.string().optional(),
  /** The status the letter showed when the intake ended submitted. */
  letterStatus: z.string().optional(),
  /** Set (by the owner) just before a draft is requested: a later attempt knows one may exist. */
  draftRequestedAt: z.coerce.number().optional(),
  /** A dry run's letter: what would have been sent (title, description, each PDF's name and SHA-256). */
  simulatedLetter: json(simulatedLetterSchema).optional(),
  /** The Sender API (base URL) the intake's letter goes to, recorded before its first call and never moved. */
  apiBaseUrl: z.string().optional(),
  /** The lock token of the worker that holds the intake while it is `processing`. */
  owner: z.string().optional(),
  strayDrafts: json(z.array(strayDraftSchema)).optional(),
  reasonCode: z.string().optional(),
  reason: z.string().optional(),
  errorCode: z.string().optional(),
  traceId: z.string().optional(),
  pdfs: json(z.array(pdfSchema)).optional(),
  ignoredAttachments: json(z.array(z.string())).optional(),
  earlierRuns: json(z.array(earlierRunSchema)).optional(),
  /** Set when the intake's personal data was erased (intake/erase.ts): when, why, by whom. */
  erasedAt: z.coerce.number().optional(),
  erasedReason: z.string().optional(),
  erasedBy: z.string().optional(),
});

type Stored = z.infer<typeof storedSchema>;
export type Timeline = Partial<Record<IntakeState, number>>;
/** `notices`: what the sender was told after 250 (notice-fields.ts), written by the notices queue. */
export type IntakeRecord = Stored & { readonly timeline: Timeline; readonly notices?: Notices };

/** What the listener writes when it accepts a message. */
export type NewIntake = Omit<IntakeRecord, 'state' | 'timeline' | 'attempts' | 'notices' | 'rawKey' | 'rawHeaders'>;

/** Fields a worker or operator may set alongside a transition. */
export type IntakeUpdate = Partial<
  Pick<
    IntakeRecord,
    | 'senderId'
    | 'letterId'
    | 'letterStatus'
    | 'reasonCode'
    | 'reason'
    | 'errorCode'
    | 'traceId'
    | 'pdfs'
    | 'ignoredAttachments'
    | 'attempts'
    | 'draftRequestedAt'
    | 'apiBaseUrl'
    | 'simulatedLetter'
  >
>;

const timelineField = (state: IntakeState): string => `at.${state}`;

/** Hash fields for a record or a partial update (undefined values are skipped). */
export function toHashFields(update: object): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [key, value] of Object.entries(update)) {
    if (value === undefined || key === 'timeline' || key === 'notices') continue;
    fields[key] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return fields;
}

/** The record from its hash, or undefined when the hash is absent or not a record. */
export function fromHash(hash: Record<string, string>): IntakeRecord | undefined {
  const parsed = storedSchema.safeParse(hash);
  if (!parsed.success) return undefined;
  const timeline: Timeline = {};
  for (const state of INTAKE_STATES) {
    const at = hash[timelineField(state)];
    if (at !== undefined) timeline[state] = Number(at);
  }
  return { ...parsed.data, timeline, notices: noticesFromHash(hash) };
}
