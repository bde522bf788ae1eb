// Reads mailauth's authenticate() result into an AuthSummary, validating every field it uses
// (mailauth is JavaScript; its shape is checked here, once, instead of trusted everywhere).
// A result that does not fit means mailauth changed under us: that is an Unexpected error
// (451 4.3.0), never a guess.
import { z } from 'zod';
import { IntakeError } from '../errors.js';
import type { AuthSummary, DkimSignatureSummary } from './summary.js';

const spfResult = z.enum(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror']);
const dkimResult = z.enum(['pass', 'fail', 'neutral', 'policy', 'temperror', 'permerror', 'none']);

const dkimRow = z.object({
  // absent on the placeholder row mailauth adds for an unsigned message
  signingDomain: z.string().optional(),
  selector: z.string().optional(),
  algo: z.string().optional(),
  status: z.object({ result: dkimResult, comment: z.string().optional() }),
  /** Canonicalized body bytes hashed, and in total. */
  canonBodyLength: z.number().optional(),
  canonBodyLengthTotal: z.number().optional(),
  /** Whether the signature has l=, and its value. */
  canonBodyLengthLimited: z.boolean().optional(),
  canonBodyLengthLimit: z.number().optional(),
});

const mailauthResult = z.object({
  dkim: z.object({
    headerFrom: z.array(z.string()),
    fromFields: z.number().int().min(0),
    results: z.array(dkimRow),
  }),
  spf: z.union([
    z.literal(false),
    z.object({
      domain: z.string(),
      'client-ip': z.string(),
      status: z.object({ result: spfResult, comment: z.string().optional() }),
    }),
  ]),
  headers: z.string(),
});

type DkimRow = z.infer<typeof dkimRow>;

/** `sender` is the envelope MAIL FROM ('' for the null sender), `ip` the client address. */
export function summarizeMailauthResult(raw: unknown, envelope: { readonly sender: string; readonly ip: string }): AuthSummary {
  const parsed = mailauthResult.safeParse(raw);
  if (!parsed.success) {
    const where = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new IntakeError('Unexpected', `mailauth returned an unexpected result (${where})`);
  }
  const { dkim, spf, headers } = parsed.data;
  return {
    fromAddresses: dkim.headerFrom,
    fromFields: dkim.fromFields,
    spf: {
      domain: spf === false ? '' : spf.domain,
      identity: envelope.sender === '' ? 'helo' : 'mailfrom',
      result: spf === false ? 'none' : spf.status.result,
      clientIp: spf === false ? envelope.ip : spf['client-ip'],
      comment: spf === false ? 'SPF was not evaluated' : spf.status.comment,
    },
    dkim: dkim.results.flatMap(toSignatureSummary),
    headers,
  };
}

function toSignatureSummary(row: DkimRow): DkimSignatureSummary[] {
  if (row.signingDomain === undefined || row.signingDomain === '') return []; // "message not signed"
  const limited = row.canonBodyLengthLimited === true;
  return [
    {
      signingDomain: row.signingDomain,
      selector: row.selector ?? '',
      algorithm: row.algo ?? '',
      result: row.status.result,
      comment: row.status.comment,
      bodyLengthTag: limited ? row.canonBodyLengthLimit : undefined,
      coversWholeBody: !limited || coversAll(row.canonBodyLength, row.canonBodyLengthTotal),
    },
  ];
}

/** With l=, the hashed canonical length must reach the canonical body's full length. */
function coversAll(hashed: number | undefined, total: number | undefined): boolean {
  return hashed !== undefined && total !== undefined && hashed >= total;
}
