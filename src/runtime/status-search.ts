// `letter-intake status <Message-ID | From>`: the intakes the search index finds, and the
// refusals in the SMTP session (which never became intakes) that the sampled records hold; when
// refusals were counted but not sampled, it says how many, since those cannot be found by name.
import type { IntakeRecord } from '../intake/record.js';
import { findRefusals, openRefusalRecords, type RefusalFinding } from '../intake/refusal-records.js';
import type { IntakeStore } from '../intake/store.js';
import type { RedisClient } from '../redis/connections.js';
import type { RoleContext } from './context.js';
import { sampleLine } from './refusal-text.js';
import { formatStatus } from './status-text.js';

export interface StatusSearch {
  readonly any: boolean;
  readonly text: string;
  readonly json: { readonly intakes: readonly IntakeRecord[]; readonly refused: RefusalFinding };
}

export async function searchEverywhere(
  deps: { readonly store: IntakeStore; readonly ctx: Pick<RoleContext, 'config' | 'clock'>; readonly redis: RedisClient },
  q: string,
): Promise<StatusSearch> {
  const now = deps.ctx.clock();
  const [ids, refused] = await Promise.all([
    deps.store.search.find(q),
    findRefusals(openRefusalRecords(deps.redis, deps.ctx.config), q, now),
  ]);
  const intakes = (await Promise.all(ids.map((id) => deps.store.get(id)))).filter((r): r is IntakeRecord => r !== undefined);
  const lines: string[] = [];
  if (intakes.length > 0) lines.push(intakes.map(formatStatus).join('\n'));
  if (refused.samples.length > 0) {
    lines.push(`refused in the SMTP session (never an intake): ${refused.samples.length}`, ...refused.samples.map(sampleLine), '');
  }
  if (intakes.length === 0 && refused.samples.length === 0) lines.push(`no intake or sampled refusal matches ${q}`);
  if (refused.notSampled > 0) {
    const scope = refused.fromDomain === undefined ? '' : ` with a From in ${refused.fromDomain}`;
    lines.push(
      `${refused.notSampled} of ${refused.counted} refusals${scope} were counted but not sampled (no Message-ID kept): letter-intake refusals${refused.fromDomain === undefined ? '' : ` --from ${refused.fromDomain}`}`,
    );
  }
  return { any: intakes.length + refused.samples.length > 0, text: `${lines.join('\n')}\n`, json: { intakes, refused } };
}
