// The variables SENDERS_FILE names for its client secrets (apiClientSecretEnv): an operator's own
// names, which may carry one of the gateway's prefixes (SENDER_API_SECRET_ACME) without being a
// misspelt setting. Read leniently: a file that does not parse names none here and is refused,
// with its reason, where the directory itself is loaded.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const namesOnly = z.object({ senders: z.array(z.looseObject({ apiClientSecretEnv: z.string().optional() })) });

export function secretVariablesNamedIn(sendersFile: string | undefined): string[] {
  if (sendersFile === undefined) return [];
  try {
    const parsed = namesOnly.safeParse(JSON.parse(readFileSync(sendersFile, 'utf8')));
    return parsed.success ? parsed.data.senders.flatMap((s) => (s.apiClientSecretEnv === undefined ? [] : [s.apiClientSecretEnv])) : [];
  } catch {
    return [];
  }
}
