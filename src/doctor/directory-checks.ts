// The sender directory as written in SENDERS_FILE: addresses claimed twice, secrets given inline
// where a variable would keep them out of the file, and addresses whose domain has no SPF.
// Judged on the raw JSON, so one problem does not hide the others.
import { z } from 'zod';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'Sender directory';

const rawSchema = z.object({
  senders: z.array(
    z.object({
      companyNameEn: z.string().optional(),
      apiClientId: z.string().optional(),
      addresses: z.array(z.string()).default([]),
      apiClientSecret: z.string().optional(),
    }),
  ),
});

export type RawDirectory = z.infer<typeof rawSchema>;

export function parseRawDirectory(json: unknown): RawDirectory | undefined {
  const parsed = rawSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

const domainOf = (address: string): string => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

export function judgeDirectory(directory: RawDirectory, domainsWithoutSpf: ReadonlySet<string>): CheckResult[] {
  const results: CheckResult[] = [];
  const owners = new Map<string, string[]>();
  directory.senders.forEach((s, i) => {
    for (const a of s.addresses) owners.set(a.toLowerCase(), [...(owners.get(a.toLowerCase()) ?? []), s.companyNameEn ?? `senders.${i}`]);
  });
  const duplicates = [...owners].filter(([, who]) => who.length > 1);
  results.push(
    duplicates.length === 0
      ? ok(AREA, 'duplicate addresses', `none among ${owners.size} addresses`)
      : fail(
          AREA,
          'duplicate addresses',
          `${duplicates.map(([a, who]) => `${a} (${who.join(', ')})`).join('; ')}: an address may belong to one sender only; the gateway will not start`,
        ),
  );

  const inline = directory.senders.filter((s) => s.apiClientSecret !== undefined);
  results.push(
    inline.length === 0
      ? ok(AREA, 'secrets', 'every client secret comes from a variable (apiClientSecretEnv)')
      : warn(
          AREA,
          'secrets',
          `given inline for ${inline.map((s) => s.companyNameEn ?? s.apiClientId ?? '?').join(', ')}: anyone who reads the file has them; use apiClientSecretEnv`,
        ),
  );

  const unprotected = [...owners.keys()].filter((a) => domainsWithoutSpf.has(domainOf(a)));
  results.push(
    unprotected.length === 0
      ? ok(AREA, 'addresses with SPF', "every address's domain publishes SPF")
      : fail(AREA, 'addresses with SPF', `${unprotected.join(', ')}: the domain has no SPF, so their mail will be refused (see DNS)`),
  );
  return results;
}
