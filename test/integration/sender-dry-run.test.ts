// A sender set to a dry run (dryRun: true): every check runs, the intake ends `simulated` with
// what would have been sent, nothing reaches the Sender API, and `ended/` records it. It counts
// toward the sender's limits.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { explain } from '../../src/notices/explain.js';
import { renderIntakeDetail } from '../../src/ops/intake-page.js';
import { formatStatus } from '../../src/runtime/status-text.js';
import { type ApiFront, startApiFront } from '../helpers/api-front.js';
import { FIXTURE_DIR, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;
let front: ApiFront;
let dir: string;

beforeAll(async () => {
  front = await startApiFront(); // Acme's own API: a dry run must never call it
  dir = mkdtempSync(join(tmpdir(), 'sender-dry-run-'));
  const file = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')) as { senders: Record<string, unknown>[] };
  const senders = file.senders.map((s) =>
    s.companyNameEn === 'Acme Utilities' ? { ...s, senderApiUrl: front.url, dryRun: true, limits: { messagesPerHour: 2 } } : s,
  );
  const sendersFile = join(dir, 'senders.json');
  writeFileSync(sendersFile, JSON.stringify({ senders }));
  gateway = await startTestGateway({ worker: true, env: { SENDERS_FILE: sendersFile } });
  front.target = gateway.sandbox?.url ?? '';
});
afterAll(async () => {
  await gateway.close();
  await front.close();
  rmSync(dir, { recursive: true, force: true });
});

async function send(raw: Buffer): Promise<string> {
  const replies = await sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
  return replies.data?.text ?? '';
}

describe('a sender set to a dry run', () => {
  it('ends the intake simulated with what would have been sent, calls no API, and says so everywhere', async () => {
    const id = intakeIdOf(await send(await signedLetter({ title: 'Dry run invoice' })));
    const record = await gateway.settled(id);
    expect(record.state).toBe('simulated');
    expect(record.simulatedLetter).toMatchObject({ title: 'Dry run invoice' });
    expect(record.simulatedLetter?.pdfs).toEqual([{ fileName: 'letter.pdf', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(record.letterId).toBeUndefined();
    expect(front.calls).toEqual([]);
    expect(gateway.sandbox?.store.allLetters().filter((l) => l.title === 'Dry run invoice')).toEqual([]);

    expect(formatStatus(record)).toContain('dry run   every check passed; nothing was sent to the Sender API');
    expect(renderIntakeDetail(record, false)).toContain('Letter (dry run)');
    const notice = explain(record, 'simulated');
    expect(notice.subject).toBe('Dry run, no letter sent: Dry run invoice');
    expect(notice.text).toContain(`letter.pdf  sha256 ${record.simulatedLetter?.pdfs[0]?.sha256}`);
    await expect.poll(async () => (await gateway.store.get(id))?.notices?.simulated?.state).toBeDefined();

    // Written after the record's end, before the job completes.
    const markers = new IntakeMarkers(gateway.rawStore);
    await expect.poll(() => markers.ended(id)).toMatchObject({ outcome: 'simulated', simulatedLetter: record.simulatedLetter });
  });

  it("counts toward the sender's limits", async () => {
    // One dry run so far this hour; the limit is 2.
    intakeIdOf(await send(await signedLetter({ title: 'Dry run 2' })));
    expect(await send(await signedLetter({ title: 'Dry run 3' }))).toMatch(/^451 4\.7\.1 the sender's limit of 2 messages per hour/);
  });
});
