// Forged senders over real SMTP into the whole gateway: each forgery is refused at end of DATA
// with 550 5.7.1 naming the check that failed, or, where the forger fully owns the domain it
// authenticates (a look-alike with its own SPF and DKIM), with 550 5.7.1 SenderNotRegistered for
// the address authentication proved (docs/design.md §2.4). No forgery ever becomes a letter.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKeys, SIGNERS, type Signer } from '../../fixtures/keys.js';
import { attachmentPart } from '../../fixtures/mime.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { ACME_FROM, letter, pdf, signAs } from '../helpers/hostile-messages.js';
import { type Reply, SmtpClient } from '../helpers/smtp-client.js';
import { countBy, findLeaks, printTable, standardNeedles } from './summary.js';

/** Look-alike domains the forger registered, with SPF for the loopback and its own DKIM key. */
const HYPHEN = 'acme-example.example';
const HOMOGRAPH = 'xn--cme-5cd.example'; // "аcme.example" with a Cyrillic а (U+0430)
const OWNED = (domain: string): Signer => ({ domain, selector: 'rsa2048', key: 'evil-rsa2048' });
const FOREIGN_IP = '127.0.0.2';

let gateway: TestGateway;
let zoneDir: string;

beforeAll(async () => {
  const zone: Record<string, unknown> = JSON.parse(readFileSync(join(FIXTURE_DIR, 'zone.json'), 'utf8'));
  const evilKey = loadKeys(join(FIXTURE_DIR, 'keys'))['evil-rsa2048'].dkimRecord;
  for (const domain of [HYPHEN, HOMOGRAPH]) {
    zone[domain] = { TXT: ['v=spf1 ip4:127.0.0.1 ip6:::1 -all'] };
    zone[`rsa2048._domainkey.${domain}`] = { TXT: [evilKey] };
  }
  zoneDir = mkdtempSync(join(tmpdir(), 'forgery-zone-'));
  writeFileSync(join(zoneDir, 'zone.json'), JSON.stringify(zone));
  gateway = await startTestGateway({ worker: true, env: { DNS_ZONE_FILE: join(zoneDir, 'zone.json') } });
});
afterAll(async () => {
  await gateway.close();
  rmSync(zoneDir, { recursive: true, force: true });
});

type Expected = { readonly smtp: 'refused'; readonly names: RegExp };

interface Forgery {
  readonly name: string;
  readonly envelopeFrom: string;
  readonly clientIp?: string;
  readonly build: () => Promise<Buffer>;
  readonly expected: Expected;
}

const refused = (names: RegExp): Expected => ({ smtp: 'refused', names });
// authentication passed for the forger's own address, which no sender registered
const notRegistered: Expected = refused(/^550 5\.7\.1 SenderNotRegistered: the From address is not a registered address/);
const ENCODED_ACME = '=?utf-8?B?PGxldHRlcnNAYWNtZS5leGFtcGxlPg==?='; // RFC 2047 for "<letters@acme.example>"

/** A letter signed with l= covering the body only up to its PDF part (relaxed/simple). */
async function partialBodySignature(): Promise<Buffer> {
  const raw = letter();
  const boundary = /boundary="([^"]+)"/.exec(raw)?.[1] ?? '';
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const pdfPartAt = body.indexOf(`--${boundary}\r\n`, 1);
  return signAs(raw, SIGNERS.acmeRsa, { canonicalization: 'relaxed/simple', maxBodyLength: Buffer.byteLength(body.slice(0, pdfPartAt)) });
}

/** A text-only letter signed with l= = its whole body, then a PDF part appended by someone else. */
async function appendedAfterFullLengthTag(): Promise<Buffer> {
  const raw = letter({ attachments: [] });
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  const signed = await signAs(raw, SIGNERS.acmeRsa, { canonicalization: 'relaxed/simple', maxBodyLength: Buffer.byteLength(body) });
  const boundary = /boundary="([^"]+)"/.exec(raw)?.[1] ?? '';
  const part = attachmentPart(pdf('appended.pdf'));
  const appended = signed
    .toString('utf8')
    .replace(`--${boundary}--\r\n`, `--${boundary}\r\n${part.headers.join('\r\n')}\r\n\r\n${part.body}\r\n--${boundary}--\r\n`);
  return Buffer.from(appended, 'utf8');
}

const FORGERIES: readonly Forgery[] = [
  {
    name: 'unaligned DKIM (From acme, d=evil.example)',
    envelopeFrom: 'bounce@acme.example',
    build: () => signAs(letter(), SIGNERS.evilRsa),
    expected: refused(/no passing DKIM signature aligned with acme\.example \(found: d=evil\.example pass, unaligned\)/),
  },
  {
    name: 'd=acme.example signed with the wrong key',
    envelopeFrom: 'bounce@acme.example',
    build: () => signAs(letter(), { domain: 'acme.example', selector: 'rsa2048', key: 'evil-rsa2048' }),
    expected: refused(/no passing DKIM signature aligned with acme\.example \(found: d=acme\.example (fail|neutral)/),
  },
  {
    name: 'unsigned, From acme',
    envelopeFrom: 'bounce@acme.example',
    build: async () => Buffer.from(letter()),
    expected: refused(/found: none, the message is not signed/),
  },
  {
    name: 'body altered after signing',
    envelopeFrom: 'bounce@acme.example',
    build: async () =>
      Buffer.from((await signAs(letter({ text: 'Amount due: 42.00 EUR\n' }))).toString('utf8').replace('42.00', '4200.00')),
    expected: refused(/d=acme\.example neutral \(body hash did not verify\)/),
  },
  {
    name: 'display name "letters@acme.example" <x@evil.example>, envelope acme',
    envelopeFrom: 'bounce@acme.example',
    build: () => signAs(letter({ from: ['"letters@acme.example" <x@evil.example>'] }), SIGNERS.evilRsa),
    expected: refused(/SPF domain acme\.example is not aligned with evil\.example/),
  },
  {
    name: 'display name letters@acme.example <x@evil.example>, all evil',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter({ from: ['letters@acme.example <x@evil.example>'] }), SIGNERS.evilRsa),
    expected: notRegistered,
  },
  {
    name: 'encoded-word display name "<letters@acme.example>" <x@evil.example>',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter({ from: [`${ENCODED_ACME} <x@evil.example>`] }), SIGNERS.evilRsa),
    expected: notRegistered,
  },
  {
    name: 'group x@evil.example plus an encoded-word "address" of acme',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter({ from: [`Group: x@evil.example;, ${ENCODED_ACME}`] }), SIGNERS.evilRsa),
    expected: notRegistered,
  },
  {
    name: 'encoded-word "address" of acme, then x@evil.example',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter({ from: [`${ENCODED_ACME}, x@evil.example`] }), SIGNERS.evilRsa),
    expected: notRegistered,
  },
  {
    name: 'look-alike acrne.example ("rn" for "m"), no DNS of its own',
    envelopeFrom: 'bounce@acrne.example',
    build: () => signAs(letter({ from: ['Acme Utilities <letters@acrne.example>'] }), OWNED('acrne.example')),
    expected: refused(/SPF none for acrne\.example from 127\.0\.0\.1/),
  },
  {
    name: `look-alike ${HYPHEN}, owned (SPF + DKIM)`,
    envelopeFrom: `bounce@${HYPHEN}`,
    build: () => signAs(letter({ from: [`Acme Utilities <letters@${HYPHEN}>`] }), OWNED(HYPHEN)),
    expected: notRegistered,
  },
  {
    name: 'look-alike acme.example.evil.example (org domain evil.example)',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter({ from: ['Acme Utilities <letters@acme.example.evil.example>'] }), SIGNERS.evilRsa),
    expected: notRegistered,
  },
  {
    name: `IDN homograph ${HOMOGRAPH} (аcme.example), owned`,
    envelopeFrom: `bounce@${HOMOGRAPH}`,
    build: () => signAs(letter({ from: [`Acme Utilities <letters@${HOMOGRAPH}>`] }), OWNED(HOMOGRAPH)),
    expected: notRegistered,
  },
  {
    name: 'IDN homograph in raw UTF-8, signed by evil.example',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter({ from: ['Acme Utilities <letters@аcme.example>'] }), SIGNERS.evilRsa),
    expected: refused(/SPF domain evil\.example is not aligned with аcme\.example|no passing DKIM signature aligned/),
  },
  {
    name: 'two From header fields',
    envelopeFrom: 'bounce@acme.example',
    build: () => signAs(letter({ from: [ACME_FROM, 'x@evil.example'] })),
    expected: refused(/the message has 2 From header fields/),
  },
  {
    name: 'From prepended to a genuine signed letter',
    envelopeFrom: 'bounce@acme.example',
    build: async () => Buffer.concat([Buffer.from('From: x@evil.example\r\n'), await signAs(letter())]),
    expected: refused(/the message has 2 From header fields/),
  },
  {
    name: 'one From with two addresses',
    envelopeFrom: 'bounce@acme.example',
    build: () => signAs(letter({ from: [`${ACME_FROM}, x@evil.example`] })),
    expected: refused(/the From header holds 2 addresses/),
  },
  {
    name: 'l= covering the text, PDF part after it',
    envelopeFrom: 'bounce@acme.example',
    build: partialBodySignature,
    expected: refused(/d=acme\.example pass, l=\d+ leaves part of the body unsigned/),
  },
  {
    name: 'l= = whole body, PDF part appended later',
    envelopeFrom: 'bounce@acme.example',
    build: appendedAfterFullLengthTag,
    expected: refused(/l=\d+ leaves part of the body unsigned/),
  },
  {
    name: 'valid DKIM, envelope domain whose SPF excludes the IP',
    envelopeFrom: 'bounce@fail.acme.example',
    build: () => signAs(letter()),
    expected: refused(/SPF fail for fail\.acme\.example from 127\.0\.0\.1/),
  },
  {
    name: 'valid DKIM, client on a foreign IP',
    envelopeFrom: 'letters@acme.example',
    clientIp: FOREIGN_IP,
    build: () => signAs(letter()),
    expected: refused(/SPF fail for acme\.example from 127\.0\.0\.2/),
  },
  {
    name: 'valid DKIM, null sender from a foreign IP',
    envelopeFrom: '',
    clientIp: FOREIGN_IP,
    build: () => signAs(letter()),
    expected: refused(/SPF fail for HELO name mta\.acme\.example from 127\.0\.0\.2/),
  },
  {
    name: 'envelope evil.example, header From acme',
    envelopeFrom: 'bounce@evil.example',
    build: () => signAs(letter()),
    expected: refused(/SPF domain evil\.example is not aligned with acme\.example/),
  },
  {
    name: 'envelope of another registered sender (globex)',
    envelopeFrom: 'letters@globex.example',
    build: () => signAs(letter()),
    expected: refused(/SPF domain globex\.example is not aligned with acme\.example/),
  },
  {
    name: 'another registered sender (globex) signs From acme',
    envelopeFrom: 'letters@globex.example',
    build: () => signAs(letter(), SIGNERS.globexRsa),
    expected: refused(/d=globex\.example pass, unaligned/),
  },
];

async function deliver(raw: Buffer, envelopeFrom: string, clientIp = '127.0.0.1'): Promise<Reply> {
  const { client } = await SmtpClient.open(gateway.port, '127.0.0.1', clientIp);
  try {
    const replies = await client.send({ from: envelopeFrom, to: [PROCESSING_ADDRESS], raw, helo: 'mta.acme.example' });
    return replies.data ?? { code: 0, text: '(no DATA reply)' };
  } finally {
    await client.quit();
  }
}

const letterCount = () => gateway.sandbox?.store.allLetters().length ?? 0;
const rows: string[][] = [];

describe('forged senders', () => {
  it.each(FORGERIES.map((f) => [f.name, f] as const))('%s: refused, and no letter', async (_name, forgery) => {
    const before = letterCount();
    const reply = await deliver(await forgery.build(), forgery.envelopeFrom, forgery.clientIp);
    rows.push([forgery.name, forgery.clientIp ?? '127.0.0.1', reply.text.slice(0, 90), '-']);
    expect(reply.text).toMatch(/^550 5\.7\.1 /);
    expect(reply.text).toMatch(forgery.expected.names);
    expect(letterCount()).toBe(before);
  });

  it('refuses a genuine letter replayed from a foreign IP, after accepting it from the sender', async () => {
    const genuine = await signAs(letter({ subject: 'Genuine letter, replayed' }));
    const first = await deliver(genuine, 'letters@acme.example');
    const record = await gateway.settled(intakeIdOf(first.text));
    const lettersAfterFirst = letterCount();
    const replay = await deliver(genuine, 'letters@acme.example', FOREIGN_IP);
    rows.push(['genuine letter replayed from a foreign IP', FOREIGN_IP, replay.text.slice(0, 90), '-']);
    expect(record.state).toBe('submitted');
    expect(replay.text).toMatch(/^550 5\.7\.1 SPF fail for acme\.example from 127\.0\.0\.2/);
    expect(letterCount()).toBe(lettersAfterFirst);
    expect((await gateway.store.get(record.intakeId))?.timeline).toEqual(record.timeline);
  });

  it('lets no prepended Subject change a genuine letter: the title is the signed Subject', async () => {
    const genuine = await signAs(letter({ subject: 'The signed title' }));
    const reply = await deliver(Buffer.concat([Buffer.from('Subject: Pay to IBAN XX00 EVIL\r\n'), genuine]), 'bounce@acme.example');
    const record = await gateway.settled(intakeIdOf(reply.text));
    const created = gateway.sandbox?.store.allLetters().find((l) => l.id === record.letterId);
    rows.push([
      'Subject prepended to a genuine signed letter',
      '127.0.0.1',
      reply.text.slice(0, 14),
      `${record.state}, title "${created?.title ?? ''}"`,
    ]);
    expect(created?.title).toBe('The signed title');
  });

  it('lets no prepended Message-ID claim another letter: that letter still arrives', async () => {
    const victimId = `<victim-${Date.now()}@acme.example>`;
    const victim = await signAs(
      letter({ subject: 'The letter that must not be swallowed' }).replace(/^Message-ID: .*$/m, `Message-ID: ${victimId}`),
    );
    const carrier = await signAs(letter({ subject: 'A genuine carrier letter' }));
    const forged = await deliver(
      Buffer.concat([Buffer.from(`Message-ID: ${victimId}\r\nSubject: Forged subject\r\n`), carrier]),
      'bounce@acme.example',
    );
    const forgedRecord = await gateway.settled(intakeIdOf(forged.text));
    const real = await deliver(victim, 'bounce@acme.example');
    const realRecord = await gateway.settled(intakeIdOf(real.text));
    const created = gateway.sandbox?.store.allLetters().find((l) => l.id === realRecord.letterId);
    rows.push([
      'Message-ID + Subject prepended to a genuine letter',
      '127.0.0.1',
      forged.text.slice(0, 14),
      `record "${forgedRecord.subject}"; the other letter: ${realRecord.state}`,
    ]);
    expect(realRecord.intakeId).not.toBe(forgedRecord.intakeId);
    expect(created?.title).toBe('The letter that must not be swallowed');
    expect(forgedRecord.subject).toBe('A genuine carrier letter'); // the record shows what DKIM verified
  });

  afterAll(() => {
    printTable(`hostile-forgery: ${rows.length} forged or replayed messages`, ['forgery', 'client', 'SMTP reply', 'worker'], rows);
    printTable(
      'hostile-forgery: outcomes',
      ['outcome', 'count'],
      countBy(rows, (r) => (r[3] === '-' ? 'refused 550 5.7.1 at SMTP' : `250, then ${r[3]}`)),
    );
  });
});

describe('the logs of this file', () => {
  it('logged no client secret, message body or PDF bytes', () => {
    expect(gateway.logs.length).toBeGreaterThan(20);
    expect(findLeaks(gateway.logs, standardNeedles())).toEqual([]);
  });
});
