// Request validation for the sandbox (zod). Every failure becomes `400 InvalidData` with a
// message naming the field, e.g. "parts.0.mimeType: must be application/pdf".
import { z } from 'zod';
import { isStrictBase64 } from './base64.js';
import { SandboxApiError } from './error-codes.js';
import { LETTER_STATUSES, type PartRequest } from './letter-rules.js';

export const LIMITS = {
  titleChars: 500,
  descriptionChars: 100_000,
  fileNameChars: 255,
  partsPerLetter: 20,
  pageSizeMax: 100,
  pageSizeDefault: 20,
} as const;

const partSchema = z
  .strictObject({
    id: z.string().min(1).optional(),
    fileName: z.string().min(1).max(LIMITS.fileNameChars).optional(),
    mimeType: z.literal('application/pdf', { error: 'must be application/pdf' }).optional(),
    base64Data: z
      .string()
      .refine(isStrictBase64, 'must be non-empty strict base64 (A-Z a-z 0-9 + /, = padding, no line breaks)')
      .optional(),
  })
  .transform((p, ctx): PartRequest => {
    const upload = [p.fileName, p.mimeType, p.base64Data];
    if (p.id !== undefined) {
      if (upload.some((v) => v !== undefined)) {
        ctx.addIssue({
          code: 'custom',
          message: 'give either id alone (keep a document) or fileName, mimeType and base64Data (upload one), not both',
        });
        return z.NEVER;
      }
      return { id: p.id };
    }
    if (p.fileName === undefined || p.mimeType === undefined || p.base64Data === undefined) {
      ctx.addIssue({ code: 'custom', message: 'a new document needs fileName, mimeType and base64Data (or id alone to keep one)' });
      return z.NEVER;
    }
    return { fileName: p.fileName, mimeType: p.mimeType, base64Data: p.base64Data };
  });

const nonBlank = (s: string): boolean => s.trim().length > 0;

export const letterBodySchema = z.strictObject({
  id: z.string().min(1).optional(),
  title: z.string().max(LIMITS.titleChars).refine(nonBlank, 'must not be empty'),
  description: z.string().max(LIMITS.descriptionChars),
  genderTargeting: z.enum(['All', 'Male', 'Female']),
  parts: z.array(partSchema).max(LIMITS.partsPerLetter),
});
export type LetterBody = z.output<typeof letterBodySchema>;

export const listQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(LIMITS.pageSizeMax).default(LIMITS.pageSizeDefault),
  status: z.enum(LETTER_STATUSES).optional(),
});
export type ListQuery = z.output<typeof listQuerySchema>;

export const faultSchema = z.strictObject({
  status: z.number().int().min(400).max(599),
  count: z.number().int().min(1).max(10_000).default(1),
  retryAfterSeconds: z.number().int().min(0).optional(),
  errorCode: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9]*$/, 'must be a word like ServiceUnavailable')
    .optional(),
  paths: z.string().startsWith('/', 'must be a path prefix starting with /').optional(),
});
export type FaultSpec = z.input<typeof faultSchema>;

/** POST /sandbox/holds: hold `method path…` requests before or after they are served. */
export const holdSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'DELETE']),
  path: z.string().startsWith('/api/v1/', 'must be an /api/v1/ path prefix'),
  phase: z.enum(['before', 'after']),
  count: z.number().int().min(1).optional(),
});
export type Fault = z.output<typeof faultSchema>;

/** Parses or throws `400 InvalidData` listing every problem. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : what}: ${i.message}`);
  throw new SandboxApiError('InvalidData', `invalid ${what}: ${problems.join('; ')}`);
}
