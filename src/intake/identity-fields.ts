// The header fields that belong to what the sender wrote, read from the message's header block
// (everything before the first empty line) in DKIM's relaxed header canonicalization
// (RFC 6376 §3.4.2): unfolded, every run of WSP one SP, no WSP at the start or end of the value.
// Trace fields (Received, Return-Path) and authentication fields (DKIM-Signature, ARC-*,
// Authentication-Results, Received-SPF) are never among them: relays add and change those.

/** The fields, in the order the digest takes them; every instance of each, in message order. */
export const IDENTITY_FIELDS = [
  'from',
  'sender',
  'to',
  'cc',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
] as const;

export type IdentityField = readonly [name: (typeof IDENTITY_FIELDS)[number], value: string];

/** The identity fields of a header block, values as latin1 text (one character per byte). */
export function identityFields(headerBlock: Buffer): IdentityField[] {
  const fields: { name: string; value: string }[] = [];
  let current: { name: string; value: string } | undefined;
  for (const line of headerBlock.toString('latin1').split(/\r?\n/)) {
    if (/^[ \t]/.test(line)) {
      // RFC 5322 §2.2.3: a folded line continues the field above it (the line break goes)
      if (current !== undefined) current.value += line;
      continue;
    }
    const colon = line.indexOf(':');
    current =
      colon < 0
        ? undefined
        : {
            name: line
              .slice(0, colon)
              .replace(/[ \t]+$/, '')
              .toLowerCase(),
            value: line.slice(colon + 1),
          };
    if (current !== undefined) fields.push(current);
  }
  return IDENTITY_FIELDS.flatMap((name) => fields.filter((f) => f.name === name).map((f) => [name, relaxedValue(f.value)] as const));
}

/** RFC 6376 §3.4.2: WSP runs become one SP; WSP before and after the value goes. */
function relaxedValue(value: string): string {
  return value.replace(/[ \t]+/g, ' ').replace(/^ | $/g, '');
}
