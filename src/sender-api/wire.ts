// What goes over the wire: the letter the client sends and the shapes it accepts back. Response
// schemas check only what the gateway relies on and let unknown fields through.
import { z } from 'zod';
import type { Base64Data } from './base64-data.js';

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

export const sessionSchema = z.looseObject({
  sessionId: z.string().min(1),
  senderId: z.string(),
  validUntilUtc: z.iso.datetime({ offset: true }),
  isValid: z.boolean(),
});

export interface ApiSession {
  readonly sessionId: string;
  readonly senderId: string;
  readonly validUntilUtc: string;
  readonly validUntilMs: number;
}

export const letterSummarySchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  title: z.string(),
  sender: z.looseObject({ companyNameEn: z.string() }),
});
export type LetterSummary = z.output<typeof letterSummarySchema>;

const partMetaSchema = z.looseObject({
  id: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  sizeBytes: z.number(),
  sha256: z.string(),
});

/**
 * `GET /letters/{id}` as the contract promises it (id, status, title, sender), with the documents
 * when the API shows them: the gateway must work without them.
 */
export const letterViewSchema = letterSummarySchema.extend({ parts: z.array(partMetaSchema).optional() });
export type LetterView = z.output<typeof letterViewSchema>;

export const letterDetailSchema = letterSummarySchema.extend({
  description: z.string(),
  genderTargeting: z.string(),
  createdUtc: z.string(),
  updatedUtc: z.string(),
  submittedUtc: z.string().nullable(),
  parts: z.array(partMetaSchema),
});
export type LetterDetail = z.output<typeof letterDetailSchema>;

export const letterPageSchema = z.looseObject({
  items: z.array(letterDetailSchema),
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
});
export type LetterPage = z.output<typeof letterPageSchema>;

export const errorEnvelopeSchema = z.looseObject({
  message: z.string().optional(),
  statusCode: z.number().optional(),
  errorCode: z.string().optional(),
  traceId: z.string().optional(),
});
