// `letter-intake refusals` and `status` for a person: the counts of refusals in the SMTP session
// (every one) and the sampled records (a few per client network), one line each. Pure.

import { AUTH_CHECK_NAMES } from '../intake/auth-refusals.js';
import type { ListedRefusal, RefusalCount } from '../intake/refusal-records.js';
import { utcTime } from './status-text.js';

const AUTH_CHECKS = new Set([...Object.values(AUTH_CHECK_NAMES), 'authentication']);

const what = (check: string, kind: 'rule' | 'authentication') =>
  check === 'other' ? 'other (a full day)' : kind === 'rule' ? check : `failed ${check}`;

export function countLine(c: RefusalCount): string {
  const sample = c.sample.messageId === '' ? c.sample.subject : c.sample.messageId;
  const domain = c.fromDomain === '' ? '(no From)' : c.fromDomain;
  const kind = c.check.split(', ').every((check) => AUTH_CHECKS.has(check)) ? 'authentication' : 'rule';
  return `  ${String(c.count).padStart(6)}  ${what(c.check, kind)} for ${domain} from ${c.network} (${c.reply}), ${utcTime(c.firstSeen)} – ${utcTime(c.lastSeen)}, e.g. ${sample}`;
}

export function sampleLine(r: ListedRefusal): string {
  const from = r.from === '' ? '(no From)' : r.from;
  const claimed = r.kind === 'authentication' ? ' (claimed)' : '';
  return `  ${utcTime(r.at)}  ${what(r.reasonCode, r.kind)}  From ${from}${claimed}  ${r.messageId === '' ? '(no Message-ID)' : r.messageId}  client ${r.clientIp}\n      ${r.reply}`;
}

export function formatRefusals(counts: readonly RefusalCount[], samples: readonly ListedRefusal[]): string {
  const total = counts.reduce((sum, c) => sum + c.count, 0);
  return `${[
    `counts: ${total} refusal${total === 1 ? '' : 's'} in the SMTP session, per client network, check, claimed From domain and reply`,
    ...(counts.length === 0 ? ['  none'] : counts.map(countLine)),
    '',
    `samples: ${samples.length} kept (a few per client network; the first and the last of a burst)`,
    ...(samples.length === 0 ? ['  none'] : samples.map(sampleLine)),
  ].join('\n')}\n`;
}
