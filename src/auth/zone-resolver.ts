// Static DNS answers from a zone file (DNS_ZONE_FILE, docs/design.md §14) instead of live DNS: for tests
// and offline runs. Format: name → record type → list of values, or "TIMEOUT" / "SERVFAIL" to
// simulate a failing name server. A TXT value is a string (split into ≤255-char
// character-strings here, RFC 1035 §3.3.14) or an explicit list of character-strings; an MX
// value is {exchange, priority}; other types take strings. Names are case-insensitive
// (RFC 4343) and a trailing root dot is ignored.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DnsError, type DnsResolver } from '../net/resolver.js';

/** RFC 1035 §3.3: a character-string is at most 255 octets. */
const MAX_CHARACTER_STRING = 255;

const characterStrings = z.array(z.string().max(MAX_CHARACTER_STRING)).min(1);
const mxRecord = z.strictObject({ exchange: z.string().min(1), priority: z.number().int().min(0).max(65_535) });
const recordValue = z.union([z.string(), characterStrings, mxRecord]);
const rrset = z.union([z.enum(['TIMEOUT', 'SERVFAIL']), z.array(recordValue)]);
const zoneSchema = z.record(z.string().min(1), z.record(z.string().regex(/^[A-Za-z0-9]+$/, 'a record type like TXT'), rrset));

type RecordValue = z.infer<typeof recordValue>;
type Answer =
  | { readonly kind: 'failure'; readonly code: 'ETIMEOUT' | 'ESERVFAIL' }
  | { readonly kind: 'txt'; readonly records: readonly (readonly string[])[] }
  | { readonly kind: 'mx'; readonly records: readonly { readonly exchange: string; readonly priority: number }[] }
  | { readonly kind: 'plain'; readonly records: readonly string[] };

export class ZoneFileError extends Error {
  override readonly name = 'ZoneFileError';
}

/** Reads and validates a zone file; errors name DNS_ZONE_FILE and the file. */
export function loadZoneResolver(file: string): DnsResolver {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ZoneFileError(`DNS_ZONE_FILE ${file} cannot be read as JSON: ${why}`);
  }
  return createZoneResolver(json, `DNS_ZONE_FILE ${file}`);
}

/** Builds a resolver from zone JSON (already parsed); `source` names it in error messages. */
export function createZoneResolver(zoneJson: unknown, source = 'DNS_ZONE_FILE'): DnsResolver {
  const parsed = zoneSchema.safeParse(zoneJson);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new ZoneFileError(`${source} is not a valid DNS zone:\n${lines.join('\n')}`);
  }
  const zone = new Map<string, Map<string, Answer>>();
  for (const [rawName, types] of Object.entries(parsed.data)) {
    const name = normalizeName(rawName);
    if (zone.has(name)) throw new ZoneFileError(`${source}: the name ${name} appears twice (names are case-insensitive)`);
    const answers = new Map<string, Answer>();
    for (const [rawType, values] of Object.entries(types)) {
      answers.set(rawType.toUpperCase(), toAnswer(values, rawType.toUpperCase(), `${source}: ${rawName} ${rawType}`));
    }
    zone.set(name, answers);
  }

  return async (name, rrtype) => {
    const answers = zone.get(normalizeName(name));
    if (answers === undefined) throw new DnsError('ENOTFOUND', name, rrtype);
    const answer = answers.get(rrtype.toUpperCase());
    if (answer?.kind === 'failure') throw new DnsError(answer.code, name, rrtype);
    if (answer === undefined || answer.records.length === 0) throw new DnsError('ENODATA', name, rrtype);
    return copyOf(answer);
  };
}

/** A resolver for tests that must not reach DNS: every query rejects with EDENIED. */
export const denyDnsResolver: DnsResolver = async (name, rrtype) => {
  throw new DnsError('EDENIED', name, rrtype);
};

function toAnswer(values: 'TIMEOUT' | 'SERVFAIL' | RecordValue[], type: string, where: string): Answer {
  if (values === 'TIMEOUT') return { kind: 'failure', code: 'ETIMEOUT' };
  if (values === 'SERVFAIL') return { kind: 'failure', code: 'ESERVFAIL' };
  if (type === 'TXT') {
    return {
      kind: 'txt',
      records: values.map((v) => {
        if (typeof v === 'string') return chunk(v);
        if (Array.isArray(v)) return v;
        throw new ZoneFileError(`${where}: TXT values are strings or lists of strings`);
      }),
    };
  }
  if (type === 'MX') {
    return {
      kind: 'mx',
      records: values.map((v) => {
        if (typeof v === 'object' && !Array.isArray(v)) return v;
        throw new ZoneFileError(`${where}: MX values are {"exchange": name, "priority": number}`);
      }),
    };
  }
  return {
    kind: 'plain',
    records: values.map((v) => {
      if (typeof v === 'string') return v;
      throw new ZoneFileError(`${where}: ${type} values are strings`);
    }),
  };
}

/** A fresh copy per answer, so a caller cannot change the zone. */
function copyOf(answer: Exclude<Answer, { kind: 'failure' }>): unknown {
  switch (answer.kind) {
    case 'txt':
      return answer.records.map((r) => [...r]);
    case 'mx':
      return answer.records.map((r) => ({ exchange: r.exchange, priority: r.priority }));
    case 'plain':
      return [...answer.records];
  }
}

function chunk(text: string): string[] {
  if (text.length === 0) return [''];
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += MAX_CHARACTER_STRING) parts.push(text.slice(at, at + MAX_CHARACTER_STRING));
  return parts;
}

function normalizeName(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}
