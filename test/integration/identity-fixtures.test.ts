// The identity fixtures table: what a sender wrote is one intake however it travelled, and a
// letter changed in what the sender wrote is a new one. Each variant goes over real SMTP to the
// listener (authentication included) and the intake id is the one its 250 names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type IdentityFixture, identityFixtures } from '../helpers/identity-fixtures.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;
let original: Buffer;
let variants: IdentityFixture[];
let originalId: string;

const deliver = async (raw: Buffer): Promise<string> => {
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return replies.data?.text ?? '(no DATA reply)';
};

beforeAll(async () => {
  gateway = await startTestGateway();
  ({ original, variants } = await identityFixtures());
  originalId = intakeIdOf(await deliver(original));
});
afterAll(async () => {
  await gateway.close();
});

describe('the identity fixtures table', () => {
  it.each([
    ['a relay signs it again (c=simple/simple, another selector)', 'the same intake'],
    ['two aligned signatures', 'the same intake'],
    ['another Received chain (another outbound host, one more hop)', 'the same intake'],
    ['a changed Subject the signature does not cover', 'a new intake'],
    ['one changed PDF byte', 'a new intake'],
    ['a changed Date', 'a new intake'],
  ])('%s: %s', async (name, expected) => {
    const variant = variants.find((v) => v.name === name);
    if (variant === undefined) throw new Error(`no fixture named ${name}`);
    expect(variant.sameLetter).toBe(expected === 'the same intake');
    const reply = await deliver(variant.raw);
    expect(reply).toMatch(/^250 /);
    if (expected === 'the same intake') expect(intakeIdOf(reply)).toBe(originalId);
    else expect(intakeIdOf(reply)).not.toBe(originalId);
  });

  it('queues one job for the original and its resends, and one for each changed letter', async () => {
    const jobs = await gateway.queue.getJobs(['waiting', 'active', 'completed', 'failed', 'delayed']);
    const ids = new Set(jobs.map((j) => j.id));
    expect(ids.has(originalId)).toBe(true);
    expect(ids.size).toBe(1 + variants.filter((v) => !v.sameLetter).length);
  });

  it('records the content digest and its scheme beside the id the digest made', async () => {
    const record = await gateway.store.get(originalId);
    expect(record?.contentDigestScheme).toBe(2);
    expect(record?.contentDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(originalId).toBe(`in${record?.contentDigest?.slice(0, 24)}`);
  });
});
