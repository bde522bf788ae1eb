// What goes over the wire: the letter the client sends and the shapes it accepts back. Response
// schemas check only what the gateway relies on and let unknown fields through.
import { z } from 'zod';
import type { Base64Data } from '../net/base64-data.js';

export type GenderTargeting = 'All' | 'Male' | 'Female';

/** A document to keep (`id` of one the letter already has) or to upload (its base64, or its bytes to send as base64). */
export type PartInput =
  | { readonly id: string }
  | { readonly fileName: string; readonly mimeType: 'application/pdf'; readonly base64Data: string | Base64Data };

export interface LetterInput {
  /** Set to update (saveDraft) or submit (submit) an existing draft. */
  readonly id?: string;
  readonly title: string;
  readonly description: string;
  readonly genderTargeting: GenderTargeting;
  readonly parts: readonly PartInput[];
}

/**
 * A login or refresh answer: `sessionId` is all the contract promises a refresh carries. The
 * rest is read when it is there (`validUntilUtc` in any ISO 8601 form, session-policy.ts) and
 * ignored when it is not readable.
 */
export const sessionAnswerSchema = z.looseObject({
  sessionId: z.string().min(1),
  senderId: z.string().optional().catch(undefined),
  validUntilUtc: z.string().optional().catch(undefined),
  isValid: z.boolean().optional().catch(undefined),
});

export interface ApiSession {
  readonly sessionId: string;
  /** The API's expiry as it wrote it, when it wrote one. */
  readonly validUntilUtc: string | undefined;
  /** When the client stops using it: the earlier of the API's expiry and our own 30 minutes. */
  readonly endsAtMs: number;
}

/**
 * The answer to a draft save: its `id` is required (a draft without one cannot be recorded, so
 * the call is retried); its `status`, when given, is the status name this API gives a draft.
 */
export const draftAnswerSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1).optional().catch(undefined),
});
export type DraftAnswer = z.output<typeof draftAnswerSchema>;

/** The status a 2xx to a submit shows, if it shows one: the submit succeeded whatever its body says. */
export interface SubmitAnswer {
  readonly status: string | undefined;
}

/** The status of an answer, when it carries one as text. */
export const statusOnlySchema = z.looseObject({ status: z.string().min(1) });

const partMetaSchema = z.looseObject({ id: z.string().min(1), sha256: z.string().min(1) });

/**
 * `GET /letters/{id}`: the id and status the contract promises, with the documents when the API
 * shows them in a form the client reads (the gateway works without them).
 */
export const letterViewSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  parts: z.array(partMetaSchema).optional().catch(undefined),
});
export type LetterView = z.output<typeof letterViewSchema>;

/**
 * A listed letter with every field a search for an earlier draft compares; a listing that shows
 * fewer is one the client cannot search.
 */
export const listedLetterSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  title: z.string(),
  description: z.string(),
  createdUtc: z.string(),
  parts: z.array(partMetaSchema),
});
export type ListedLetter = z.output<typeof listedLetterSchema>;

export const letterPageSchema = z.looseObject({
  items: z.array(listedLetterSchema),
  total: z.number().int().min(0),
});
export type LetterPage = z.output<typeof letterPageSchema>;

export const errorEnvelopeSchema = z.looseObject({
  message: z.string().optional(),
  statusCode: z.number().optional(),
  errorCode: z.string().optional(),
  traceId: z.string().optional(),
});
