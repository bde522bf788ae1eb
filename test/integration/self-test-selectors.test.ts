// The self-test for a sender that lists its DKIM selectors: the reply and the report say which
// signature's selector is listed and which is not; signed only with an unlisted one, the
// self-test fails with a line naming that selector and the listed ones, like a letter's 550.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SelfTestReports } from '../../src/intake/self-test-reports.js';
import { reportLines } from '../../src/intake/self-test-text.js';
import { FIXTURE_DIR, fixture, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { tenantSendersFile } from '../helpers/tenant-senders.js';

const SELF_TEST = 'selftest@intake.example';
let gateway: TestGateway;

beforeAll(async () => {
  const file = tenantSendersFile({ acme: { dkimSelectors: ['rsa2048'] } });
  gateway = await startTestGateway({ env: { SENDERS_FILE: file } });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
});

/** The ed25519-signed fixture with a second signature, s=rsa2048, on top. */
async function signedTwice(): Promise<Buffer> {
  const raw = fixture('ed25519-signed.eml').toString('utf8');
  const { signatures, errors } = await dkimSign(raw, {
    canonicalization: 'relaxed/relaxed',
    signTime: new Date(),
    signatureData: [
      {
        signingDomain: 'acme.example',
        selector: 'rsa2048',
        privateKey: readFileSync(resolve(FIXTURE_DIR, 'keys', 'acme-rsa2048.pem'), 'utf8'),
      },
    ],
  });
  if (errors.length > 0) throw new Error(`signing failed: ${JSON.stringify(errors)}`);
  return Buffer.from(signatures + raw, 'utf8');
}

async function selfTest(raw: Buffer): Promise<string> {
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [SELF_TEST], raw });
  return replies.data?.text ?? '';
}

describe('a self-test from a sender that lists its DKIM selectors', () => {
  it('passes with a listed selector and names the unlisted one beside it, in the reply and the report', async () => {
    const reply = await selfTest(await signedTwice());
    expect(reply).toMatch(
      /^250 2\.0\.0 self-test st[0-9a-f]{24}: SPF pass, DKIM pass \(acme\.example s=rsa2048, listed; not listed: s=ed25519\), aligned/,
    );
    const id = /self-test (st[0-9a-f]{24})/.exec(reply)?.[1] ?? '';
    const report = await new SelfTestReports(gateway.redis, gateway.prefix).get(id);
    expect(report?.dkimSelectors).toEqual({
      listed: ['rsa2048'],
      signatures: [
        { domain: 'acme.example', selector: 'rsa2048', result: 'pass', listed: true },
        { domain: 'acme.example', selector: 'ed25519', result: 'pass', listed: false },
      ],
    });
    const lines = report === undefined ? [] : reportLines(report);
    expect(lines).toContain('DKIM selectors the sender lists: rsa2048');
    expect(lines).toContain('  d=acme.example s=rsa2048 (pass): listed, counts');
    expect(lines).toContain('  d=acme.example s=ed25519 (pass): not listed, does not count');
  });

  it('fails when signed only with an unlisted selector, naming the signature but nothing the directory lists (no enumeration)', async () => {
    const reply = await selfTest(fixture('ed25519-signed.eml'));
    const lines = reply.split('\n');
    expect(lines[0]).toBe('550-5.7.1 self-test: failed DKIM; nothing is mailed');
    expect(lines).toContainEqual(expect.stringMatching(/^550[- ]5\.7\.1 DKIM: fail: .*found: d=acme\.example s=ed25519 pass/));
    expect(reply).not.toMatch(/listed|lists|rsa2048/);
    expect(lines.every((l) => Buffer.byteLength(l) <= 510 && /^[\x20-\x7e]*$/.test(l))).toBe(true);
    const [latest] = await new SelfTestReports(gateway.redis, gateway.prefix).list(1);
    const text = latest === undefined ? [] : reportLines(latest);
    expect(text).toContain('  d=acme.example s=ed25519 (pass): not listed, does not count');
  });
});
