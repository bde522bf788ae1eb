// Erasing an intake end to end: a letter over SMTP → raw store → worker → sandbox API, then
// `eraseIntake` (what `letter-intake erase` runs). Afterwards the store's files hold neither the
// message nor a marker naming it (only the tombstone `erased/<id>`), the record keeps no personal
// field, the job and search entries are gone, the same message again is refused 550 naming the
// erasure, and `recover` does not bring it back, even after a stop half-way through the erasure
// and a Redis loss. An intake still in flight is refused without --force.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eraseIntake } from '../../src/intake/erase.js';
import { intakeKeys } from '../../src/intake/keys.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { createLogger } from '../../src/log.js';
import { NoticeLedger } from '../../src/notices/ledger.js';
import { recoverIntakes } from '../../src/recover/recover.js';
import { formatStatus } from '../../src/runtime/status-text.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway, testRawDir } from '../helpers/gateway.js';
import { letterPdf } from '../helpers/pdf-samples.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const SUBJECT = 'Mahnung Erika Mustermann 0815';
const logger = createLogger({ level: 'silent' });

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const deps = (g: TestGateway) => ({
  redis: g.redis,
  prefix: g.prefix,
  store: g.store,
  rawStore: g.rawStore,
  queue: g.queue,
  clock: Date.now,
  logger,
});

const send = (g: TestGateway, raw: Buffer) =>
  sendOnce(g.port, { from: 'letters@acme.example', to: [PROCESSING_ADDRESS], raw, helo: 'mta.acme.example' });

describe('letter-intake erase', () => {
  it('removes the raw mail, markers, job, index entries and personal fields; refuses the message again; recover leaves it erased', async () => {
    gateway = await startTestGateway({ worker: true });
    const raw = await signedLetter({ title: SUBJECT, pdf: await letterPdf() });
    const intakeId = intakeIdOf((await send(gateway, raw)).data?.text ?? '');
    const before = await gateway.settled(intakeId, 60_000);
    expect(before.state).toBe('submitted');
    const dir = testRawDir(gateway.prefix);
    expect(filesUnder(dir).some((f) => readFileSync(f).includes(SUBJECT))).toBe(true);
    expect(await gateway.store.search.find(before.messageId)).toContain(intakeId);

    const result = await eraseIntake(deps(gateway), intakeId, {
      reason: 'GDPR Art. 17 request #42',
      by: 'data-protection-officer',
      force: false,
    });
    expect(result).toMatchObject({ kind: 'erased', letterId: before.letterId });

    // files: nothing of the message, only the tombstone, which names no one
    const files = filesUnder(dir);
    expect(files.filter((f) => readFileSync(f).includes(SUBJECT))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.eml'))).toEqual([]);
    expect(files.map((f) => f.slice(dir.length))).toEqual([expect.stringMatching(new RegExp(`erased.${intakeId}`))]);
    expect(JSON.parse(readFileSync(files[0] ?? '', 'utf8'))).toEqual({
      intakeId,
      at: expect.any(Number),
      reason: 'GDPR Art. 17 request #42',
      by: 'data-protection-officer',
    });

    // record: the state and the letter id stay, no personal field does
    const after = await gateway.store.get(intakeId);
    expect(after).toMatchObject({
      state: 'submitted',
      letterId: before.letterId,
      from: '',
      subject: '',
      messageId: '',
      envelopeFrom: '',
      clientIp: '',
      erasedReason: 'GDPR Art. 17 request #42',
    });
    expect(after?.rawKey).toBeUndefined();
    expect(after?.pdfs?.[0]?.fileName).toBe('letter-1.pdf');
    const hash = await gateway.redis.hgetall(intakeKeys(gateway.prefix).record(intakeId));
    expect(Object.values(hash).filter((v) => v.includes('acme.example') || v.includes('Mustermann'))).toEqual([]);
    expect(formatStatus(after ?? before)).toMatch(
      /^intake \S+: submitted, erased\n {2}erased {4}\d{4}-.* by data-protection-officer: GDPR/,
    );
    expect(await gateway.queue.getJob(intakeId)).toBeUndefined();
    expect(await gateway.store.search.find(before.messageId)).toEqual([before.messageId]);

    // the same message again: refused, naming the erasure
    const again = await send(gateway, raw);
    expect(again.data?.code).toBe(550);
    expect(again.data?.text).toMatch(new RegExp(`5\\.0\\.0 .*intake ${intakeId} was erased on \\d{4}-\\d\\d-\\d\\d`));

    // recover after a stop half-way (accepted/ still there) and a Redis loss: it stays erased
    await gateway.rawStore.putMarker('accepted', intakeId, JSON.stringify({ intakeId, blobKey: before.rawKey }), 'replace');
    await gateway.redis.del(intakeKeys(gateway.prefix).record(intakeId));
    await gateway.redis.del(intakeKeys(gateway.prefix).erased(intakeId)); // the tombstone went with Redis
    const report = await recoverIntakes({
      store: gateway.store,
      queue: gateway.queue,
      rawStore: gateway.rawStore,
      markers: new IntakeMarkers(gateway.rawStore),
      clock: Date.now,
      attempts: 3,
      logger,
      ledger: new NoticeLedger(gateway.redis, gateway.prefix),
      noticeLifetimeMs: 86_400_000,
    });
    expect(report.counts.keep).toBe(1);
    expect(report.counts.tombstones).toBe(1); // put back from erased/
    expect(await gateway.store.get(intakeId)).toBeUndefined();
    // so the same message sent after the loss is refused still, never a second letter
    const afterLoss = await send(gateway, raw);
    expect(afterLoss.data?.code).toBe(550);
    expect(afterLoss.data?.text).toMatch(/was erased on/);
  });

  it('refuses an intake still in flight without --force, and erases it with it', async () => {
    gateway = await startTestGateway({ worker: false });
    const intakeId = intakeIdOf((await send(gateway, await signedLetter({ title: 'In flight', pdf: await letterPdf() }))).data?.text ?? '');
    expect(await eraseIntake(deps(gateway), intakeId, { reason: 'request', by: 'dpo', force: false })).toEqual({
      kind: 'in-flight',
      intakeId,
      state: 'queued',
    });
    expect((await gateway.store.get(intakeId))?.subject).toBe('In flight');
    expect(await eraseIntake(deps(gateway), intakeId, { reason: 'request', by: 'dpo', force: true })).toMatchObject({ kind: 'erased' });
    expect((await gateway.store.get(intakeId))?.subject).toBe('');
  });
});
