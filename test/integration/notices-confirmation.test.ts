// The optional confirmation for a created letter, and a gateway without a relay: it records the
// notice it would have sent, the intake page shows it, and the metrics count it.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import type { NoticeEntry } from '../../src/intake/notice-fields.js';
import { renderIntakeDetail } from '../../src/ops/intake-page.js';
import { createMetrics } from '../../src/ops/metrics.js';
import type { NoticeKind } from '../../src/words/notice-kind.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startTestRelay, type TestRelay } from '../helpers/notice-relay.js';
import { reportParts, statusField } from '../helpers/report-parts.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

async function deliver(gateway: TestGateway): Promise<string> {
  const raw = await signedLetter({ title: `Notice test ${randomUUID()}` });
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return intakeIdOf(replies.data?.text ?? '');
}

async function noticeSettled(gateway: TestGateway, intakeId: string, kind: NoticeKind): Promise<NoticeEntry> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const entry = (await gateway.store.get(intakeId))?.notices?.[kind];
    if (entry !== undefined && !['queued', 'sending', 'committed'].includes(entry.state)) return entry;
    if (Date.now() > deadline) throw new Error(`notice ${kind} of ${intakeId} is ${entry?.state ?? 'absent'}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('a sender who asked for confirmations', () => {
  let relay: TestRelay;
  let gateway: TestGateway;
  beforeAll(async () => {
    // The fixture directory with Acme opted in to `"notify": ["submitted"]`.
    const directory: { senders: Record<string, unknown>[] } = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8'));
    const sendersFile = join(tmpdir(), `senders-notify-${randomUUID()}.json`);
    writeFileSync(sendersFile, JSON.stringify({ senders: directory.senders.map((s) => ({ ...s, notify: ['submitted'] })) }));
    relay = await startTestRelay();
    gateway = await startTestGateway({ worker: true, env: { NOTICE_SMTP_URL: relay.url, SENDERS_FILE: sendersFile } });
  });
  afterAll(async () => {
    await gateway.close();
    await relay.close();
  });

  it('gets a short confirmation with the letter id and status PendingApproval', async () => {
    const intakeId = await deliver(gateway);
    const record = await gateway.settled(intakeId);
    expect(record.state).toBe('submitted');
    expect((await noticeSettled(gateway, intakeId, 'submitted')).state).toBe('sent');
    const [relayed, ...others] = await relay.waitForMessages(1);
    expect(others).toEqual([]);
    expect(relayed?.mailFrom).toBe('');
    expect(relayed?.rcptTo).toEqual(['letters@acme.example']);
    const [human, status] = (await reportParts(relayed?.raw ?? Buffer.alloc(0))).map((p) => p.body);
    expect(human).toContain(`letter id ${record.letterId ?? '(none)'}, status PendingApproval`);
    expect(statusField(status ?? '', 'Action')).toBe('delivered');
  });
});

describe('a gateway without NOTICE_SMTP_URL', () => {
  let gateway: TestGateway;
  const metrics = createMetrics();
  beforeAll(async () => {
    gateway = await startTestGateway({ worker: true, observer: metrics.observer });
  });
  afterAll(async () => {
    await gateway.close();
  });

  it('records the notice it would have sent, shows it on the intake page and counts it', async () => {
    gateway.sandbox?.store.injectFault({ status: 400, errorCode: 'InvalidData', paths: '/api/v1/letters', count: 1 });
    const intakeId = await deliver(gateway);
    expect((await gateway.settled(intakeId)).state).toBe('rejected');
    const entry = await noticeSettled(gateway, intakeId, 'rejected');
    expect(entry).toMatchObject({ state: 'unsent', reason: 'not sent: no relay configured (NOTICE_SMTP_URL)', to: 'letters@acme.example' });
    expect(entry.text).toContain('Reason: ApiRejected');

    const record = await gateway.store.get(intakeId);
    if (record === undefined) throw new Error('no record');
    const page = renderIntakeDetail(record, false);
    expect(page).toContain('Notices to the sender');
    expect(page).toContain('rejected notice: unsent');
    expect(page).toContain('not sent: no relay configured');
    expect(page).toContain(`as intake ${intakeId}`);

    const text = await metrics.registry.metrics();
    expect(text).toContain('letter_intake_notices_total{kind="rejected",state="queued"} 1');
    expect(text).toContain('letter_intake_notices_total{kind="rejected",state="unsent"} 1');
  });
});
