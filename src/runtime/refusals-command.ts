// `letter-intake refusals [--from DOMAIN] [--since TIME] [--json]`: every refusal in the SMTP
// session counted, and the sampled records, newest first (intake/refusal-records.ts). --json
// prints one object alone on standard output: {"counts": [...], "samples": [...]}.
import { fromDomainOf } from '../intake/refusal-counts.js';
import { listSamples, openRefusalRecords } from '../intake/refusal-records.js';
import { commandRedisTopology, connectForCommand } from './command-redis.js';
import { roleContext } from './context.js';
import type { CommandOptions } from './intake-commands.js';
import { formatRefusals } from './refusal-text.js';

const COMMAND_TIMEOUT_MS = 10_000;
/** The samples one listing reads at most (each record keeps 10,000 at most). */
const SAMPLES_LISTED = 10_000;

export async function refusalsCommand(_args: readonly string[], options: CommandOptions = {}): Promise<number> {
  const text = (name: string): string | undefined => (typeof options[name] === 'string' ? options[name] : undefined);
  const rawFrom = text('from');
  const fromDomain =
    rawFrom === undefined ? undefined : (rawFrom.includes('@') ? fromDomainOf(rawFrom) : rawFrom.trim().toLowerCase()) || undefined;
  const rawSince = text('since');
  const since = rawSince === undefined ? undefined : Date.parse(rawSince);
  if (since !== undefined && Number.isNaN(since)) {
    process.stderr.write(`letter-intake refusals: --since: not a time: ${rawSince ?? ''} (use ISO 8601, e.g. 2026-11-25T14:00:00Z)\n`);
    return 64; // EX_USAGE
  }
  const ctx = roleContext(process.env, 'letter-intake');
  const redis = await connectForCommand(commandRedisTopology(ctx.config), COMMAND_TIMEOUT_MS);
  try {
    const records = openRefusalRecords(redis, ctx.config);
    const now = ctx.clock();
    const [counts, all] = await Promise.all([
      records.counts.list(now, { fromDomain, since }),
      listSamples(records, SAMPLES_LISTED, now, ['rule', 'authentication']),
    ]);
    const samples = all.filter(
      (r) => (since === undefined || r.at >= since) && (fromDomain === undefined || fromDomainOf(r.from) === fromDomain),
    );
    process.stdout.write(options.json === true ? `${JSON.stringify({ counts, samples })}\n` : formatRefusals(counts, samples));
    return 0;
  } finally {
    redis.disconnect();
  }
}
