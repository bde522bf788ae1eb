// The intake records' bookkeeping in Redis: where a record's message is, what expires, what stays.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NewIntake } from '../../src/intake/record.js';
import { IntakeStore } from '../../src/intake/store.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import { loadRawMessage } from '../../src/raw-store/raw-message.js';
import { putBlob, storedMessage, UNREAD_BLOB } from '../helpers/raw-stores.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const redis = connectTestRedis();
const prefix = randomPrefix();
const rawDir = mkdtempSync(join(tmpdir(), 'letter-intake-store-'));
const rawStore = fileRawStore({ dir: rawDir, timeoutMs: 5000 });
const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: 120_000 });
const intake = (intakeId: string): NewIntake => ({
  intakeId,
  receivedAt: 1,
  envelopeFrom: 'b@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '127.0.0.1',
  helo: 'mta',
  from: 'letters@acme.example',
  subject: 's',
  messageId: `<${intakeId}@x>`,
  sizeBytes: 4,
  auth: {},
});

afterAll(async () => {
  await dropPrefix(redis, prefix);
  redis.disconnect();
  rmSync(rawDir, { recursive: true, force: true });
});

/** Keys under the test's prefix whose value (a string, or any field of a hash) holds `text`. */
async function valuesHolding(text: string): Promise<string[]> {
  const found: string[] = [];
  for (const key of await redis.keys(`${prefix}:*`)) {
    const type = await redis.type(key);
    const values = type === 'string' ? [(await redis.get(key)) ?? ''] : type === 'hash' ? Object.values(await redis.hgetall(key)) : [];
    if (values.some((v) => v.includes(text))) found.push(key);
  }
  return found;
}

describe('the intake store', () => {
  it('points the record at the committed blob, names the intake in the blob index, and keeps no message in Redis', async () => {
    const body = await putBlob(rawStore, Buffer.from('body bytes'));
    await store.create(intake('inspool00000000000000002'), { headers: 'H: 1\r\n', body }, 1);
    expect((await store.get('inspool00000000000000002'))?.rawKey).toBe(body.blobKey);
    expect((await storedMessage(store, rawStore, 'inspool00000000000000002'))?.toString()).toBe('H: 1\r\nbody bytes');
    expect(await redis.hget(store.blobKeys.blobs, body.blobKey)).toBe('inspool00000000000000002');
    expect(await valuesHolding('body bytes')).toEqual([]);
  });

  it('says which blob is missing when the store lost it', async () => {
    await store.create(intake('inmissing000000000000001'), { headers: '', body: UNREAD_BLOB }, 1);
    const record = await store.get('inmissing000000000000001');
    const message = record === undefined ? undefined : await loadRawMessage(rawStore, record);
    expect(message).toEqual({
      found: false,
      reason: `the raw message ${UNREAD_BLOB.blobKey} is missing from the raw store file://${rawDir}`,
    });
  });

  it('indexes an intake by Message-ID and From for as long as the longest-kept record, newest first, dropping older entries', async () => {
    // Records kept three days (longer than a `received` record's day): so are the index entries.
    const keepMs = 3 * 24 * 3600 * 1000;
    const store = new IntakeStore(redis, prefix, { rawMs: 60_000, recordMs: keepMs });
    const fromKey = `${prefix}:find:from:indexed@acme.example`;
    const first = { ...intake('inindexed000000000000001'), from: 'Indexed@acme.example', messageId: '<First@acme.example>' };
    const second = { ...intake('inindexed000000000000002'), from: 'indexed@acme.example' };
    await store.create(first, { headers: '', body: UNREAD_BLOB }, 1000);
    await store.create(second, { headers: '', body: UNREAD_BLOB }, 2000);
    expect(await store.search.find('first@ACME.example')).toEqual(['first@ACME.example', first.intakeId]);
    expect(await store.search.find('indexed@acme.example')).toEqual(['indexed@acme.example', second.intakeId, first.intakeId]);
    const ttl = await redis.pttl(fromKey);
    expect(ttl).toBeGreaterThan(keepMs - 60_000);
    expect(ttl).toBeLessThanOrEqual(keepMs);

    // Three days after the first, a third intake from the same address: the first's entry is gone.
    const third = { ...intake('inindexed000000000000003'), from: 'indexed@acme.example' };
    await store.create(third, { headers: '', body: UNREAD_BLOB }, 1000 + keepMs + 1);
    expect(await store.search.find('indexed@acme.example')).toEqual(['indexed@acme.example', third.intakeId, second.intakeId]);

    // A re-delivery of the first finds its record and is indexed again, at its new time.
    expect(await store.create(first, { headers: '', body: UNREAD_BLOB }, 1000 + keepMs + 2)).toMatchObject({ created: false });
    expect(await store.search.find('indexed@acme.example')).toEqual([
      'indexed@acme.example',
      first.intakeId,
      third.intakeId,
      second.intakeId,
    ]);
  });

  it('lets a record that was never confirmed queued expire, and keeps a queued one', async () => {
    await store.create(intake('inspool00000000000000003'), { headers: '', body: UNREAD_BLOB }, 1);
    expect(await redis.pttl(store.keys.record('inspool00000000000000003'))).toBeGreaterThan(0);
    await store.transition('inspool00000000000000003', ['received'], 'queued', 2);
    expect(await redis.pttl(store.keys.record('inspool00000000000000003'))).toBe(-1);
  });

  it('makes the blob of a submitted or rejected intake due when its retention ends, and never that of a failed one', async () => {
    const submitted = await putBlob(rawStore, Buffer.from('a'));
    const failed = await putBlob(rawStore, Buffer.from('b'));
    await store.create(intake('indue0000000000000000001'), { headers: '', body: submitted }, 1);
    await store.create(intake('indue0000000000000000002'), { headers: '', body: failed }, 1);
    await store.transition('indue0000000000000000001', ['received'], 'submitted', 1_000_000);
    await store.transition('indue0000000000000000002', ['received'], 'failed', 1_000_000);
    expect(await redis.zscore(store.blobKeys.due, submitted.blobKey)).toBe(String(1_000_000 + 60_000));
    expect(await redis.zscore(store.blobKeys.due, failed.blobKey)).toBeNull();
  });

  it('drops index entries of ended intakes whose records have expired', async () => {
    const index = store.keys.stateIndex('submitted');
    await redis.zadd(index, '1000', 'inexpired0000000000000001');
    await store.create(intake('inspool00000000000000004'), { headers: '', body: UNREAD_BLOB }, 500_000);
    await store.transition('inspool00000000000000004', ['received'], 'submitted', 500_000);
    expect(await redis.zrange(index, '0', '-1')).toEqual(expect.arrayContaining(['inspool00000000000000004']));
    expect(await redis.zrange(index, '0', '-1')).not.toContain('inexpired0000000000000001');
  });

  it('drops received-index entries of records that expired unconfirmed, so state:received does not grow for ever', async () => {
    const index = store.keys.stateIndex('received');
    const day = 24 * 3600 * 1000;
    await store.create(intake('inspool00000000000000005'), { headers: '', body: UNREAD_BLOB }, 1000);
    await redis.del(store.keys.record('inspool00000000000000005')); // as its TTL would have done
    await store.create(intake('inspool00000000000000006'), { headers: '', body: UNREAD_BLOB }, 1000 + day + 1);
    expect(await redis.zrange(index, '0', '-1')).not.toContain('inspool00000000000000005');
    expect(await redis.zrange(index, '0', '-1')).toContain('inspool00000000000000006');
  });

  it('points a failed record at the new copy on re-delivery, keeping it failed (replayable until queued anew) and its letter id', async () => {
    const first = await putBlob(rawStore, Buffer.from('same bytes'));
    const second = await putBlob(rawStore, Buffer.from('same bytes'));
    await store.create(intake('inspool00000000000000007'), { headers: '', body: first }, 1);
    await store.transition('inspool00000000000000007', ['received'], 'failed', 2, { letterId: 'l-7' });
    const again = await store.create(intake('inspool00000000000000007'), { headers: '', body: second }, 3);
    expect(again).toEqual({ created: false, state: 'failed', requeue: true, letterId: 'l-7' });
    expect(await store.get('inspool00000000000000007')).toMatchObject({ state: 'failed', letterId: 'l-7', rawKey: second.blobKey });
    expect(await redis.zscore(store.keys.stateIndex('failed'), 'inspool00000000000000007')).not.toBeNull();
    expect(await redis.hget(store.blobKeys.blobs, second.blobKey)).toBe('inspool00000000000000007');
  });

  it('keeps the timeline of a run that failed when a replay queues the intake again, and starts the next run afresh', async () => {
    const id = 'inreplayed00000000000001';
    await store.create(intake(id), { headers: '', body: UNREAD_BLOB }, 100);
    await store.transition(id, ['received'], 'queued', 110);
    await store.transition(id, ['queued'], 'processing', 120, { attempts: 3 });
    await store.transition(id, ['processing'], 'failed', 130, { errorCode: 'InvalidCredentials', reason: 'login refused' });
    await store.transition(id, ['failed'], 'queued', 200); // the replay
    await store.transition(id, ['queued'], 'processing', 210, { attempts: 1 });
    await store.transition(id, ['processing'], 'submitted', 220, { letterId: 'letter-1' });
    const record = await store.get(id);
    expect(record?.timeline).toEqual({ received: 100, queued: 200, processing: 210, submitted: 220 });
    expect(record?.earlierRuns).toEqual([
      { timeline: { queued: 110, processing: 120, failed: 130 }, errorCode: 'InvalidCredentials', reason: 'login refused', attempts: 3 },
    ]);
  });

  it('answers a move asked to read with the record as the move left it, the error fields of a failed run cleared', async () => {
    const id = 'inreadback00000000000001';
    await store.create(intake(id), { headers: '', body: UNREAD_BLOB }, 100);
    await store.transition(id, ['received'], 'queued', 110);
    await store.transition(id, ['queued'], 'processing', 120);
    await store.transition(id, ['processing'], 'failed', 130, { errorCode: 'InvalidCredentials', reason: 'login refused' });
    await store.transition(id, ['failed'], 'queued', 200); // the replay
    await store.claim(id, ['queued'], 210, { attempts: 1 }, 'owner-1');
    const moved = await store.transitionAndRead(
      id,
      ['processing'],
      'submitted',
      220,
      { letterId: 'letter-2' },
      { expectedOwner: 'owner-1' },
    );
    expect(moved).toMatchObject({ ok: true, record: { state: 'submitted', letterId: 'letter-2', timeline: { submitted: 220 } } });
    expect(moved.record).toEqual(await store.get(id));
    expect(moved.record?.errorCode).toBeUndefined();
    expect(moved.record?.reason).toBeUndefined();
    expect(moved.record?.earlierRuns).toHaveLength(1);
  });

  it('answers a move asked to read that its state refuses with that state, and no record', async () => {
    const id = 'inreadback00000000000002';
    await store.create(intake(id), { headers: '', body: UNREAD_BLOB }, 100);
    await store.transition(id, ['received'], 'queued', 110);
    expect(await store.transitionAndRead(id, ['processing'], 'submitted', 120, {})).toEqual({ ok: false, state: 'queued' });
  });

  it('keeps the newest 20 runs that failed', async () => {
    const id = 'inreplayed00000000000002';
    await store.create(intake(id), { headers: '', body: UNREAD_BLOB }, 100);
    await store.transition(id, ['received'], 'queued', 100);
    for (let run = 1; run <= 22; run += 1) {
      await store.transition(id, ['queued'], 'processing', run * 1000);
      await store.transition(id, ['processing'], 'failed', run * 1000 + 1, { errorCode: `E${run}` });
      await store.transition(id, ['failed'], 'queued', run * 1000 + 2);
    }
    const runs = (await store.get(id))?.earlierRuns ?? [];
    expect(runs).toHaveLength(20);
    expect(runs.map((r) => r.errorCode)).toEqual(Array.from({ length: 20 }, (_, i) => `E${i + 3}`));
    expect(runs[19]?.timeline).toEqual({ queued: 21_002, processing: 22_000, failed: 22_001 });
  });

  it('keeps the first blob of a re-delivered intake that did not fail (the new copy is left for the sweep)', async () => {
    const first = await putBlob(rawStore, Buffer.from('once'));
    const second = await putBlob(rawStore, Buffer.from('once'));
    await store.create(intake('inspool00000000000000008'), { headers: '', body: first }, 1);
    await store.transition('inspool00000000000000008', ['received'], 'queued', 2);
    expect(await store.create(intake('inspool00000000000000008'), { headers: '', body: second }, 3)).toEqual({
      created: false,
      state: 'queued',
      requeue: false,
      rawKey: first.blobKey,
      rawHeaders: '',
    });
    expect((await store.get('inspool00000000000000008'))?.rawKey).toBe(first.blobKey);
    expect(await redis.hget(store.blobKeys.blobs, second.blobKey)).toBeNull();
  });

  describe('ownership of a processing intake', () => {
    const held = async (id: string, owner: string) => {
      await store.create(intake(id), { headers: '', body: UNREAD_BLOB }, 1);
      await store.transition(id, ['received'], 'processing', 2, {}, { claim: owner });
    };

    it('answers a claim with the record as the claim left it, checkpoints of the worker before included', async () => {
      const id = 'inowner000000000000000009';
      await held(id, 'worker-a:1');
      expect(await store.checkpoint(id, 'worker-a:1', { draftRequestedAt: 5 })).toBe('ok');
      expect(await store.checkpoint(id, 'worker-a:1', { letterId: 'letter-a' }, 'letterId')).toBe('ok');
      const claimed = await store.claim(id, ['processing'], 8, { attempts: 2 }, 'worker-b:7');
      expect(claimed.ok).toBe(true);
      expect({
        state: claimed.record?.state,
        attempts: claimed.record?.attempts,
        letterId: claimed.record?.letterId,
        draftRequestedAt: claimed.record?.draftRequestedAt,
        processingAt: claimed.record?.timeline.processing,
      }).toEqual({ state: 'processing', attempts: 2, letterId: 'letter-a', draftRequestedAt: 5, processingAt: 8 });
      expect(await store.isOwner(id, 'worker-b:7')).toBe(true);
      expect(await store.claim(id, ['received'], 9, {}, 'worker-c:1')).toEqual({ ok: false, state: 'processing' });
      expect(await store.claim('inowner-none', ['received'], 9, {}, 'worker-c:1')).toEqual({ ok: false, state: undefined });
    });

    it('refuses checkpoints and outcomes from a worker whose job was taken over, and accepts the new owner', async () => {
      const id = 'inowner000000000000000001';
      await held(id, 'worker-a:1');
      expect(await store.transition(id, ['processing'], 'processing', 3, {}, { claim: 'worker-b:7' })).toEqual({ ok: true });
      expect(await store.checkpoint(id, 'worker-a:1', { draftRequestedAt: 5 })).toBe('notowner');
      expect(await store.transition(id, ['processing'], 'submitted', 6, { letterId: 'late' }, { expectedOwner: 'worker-a:1' })).toEqual({
        ok: false,
        state: undefined,
        notOwner: true,
      });
      expect(await store.isOwner(id, 'worker-a:1')).toBe(false);
      expect(await store.checkpoint(id, 'worker-b:7', { letterId: 'letter-b' }, 'letterId')).toBe('ok');
      expect(await store.transition(id, ['processing'], 'submitted', 7, { letterId: 'letter-b' }, { expectedOwner: 'worker-b:7' })).toEqual(
        { ok: true },
      );
      const record = await store.get(id);
      expect({
        state: record?.state,
        letterId: record?.letterId,
        draftRequestedAt: record?.draftRequestedAt,
        owner: record?.owner,
      }).toEqual({ state: 'submitted', letterId: 'letter-b', draftRequestedAt: undefined, owner: undefined });
    });

    it('records one letter id per intake: the owner cannot replace it with another', async () => {
      const id = 'inowner000000000000000002';
      await held(id, 'w:1');
      expect(await store.checkpoint(id, 'w:1', { letterId: 'first' }, 'letterId')).toBe('ok');
      expect(await store.checkpoint(id, 'w:1', { letterId: 'first' }, 'letterId')).toBe('ok');
      expect(await store.checkpoint(id, 'w:1', { letterId: 'second' }, 'letterId')).toBe('conflict');
      expect((await store.get(id))?.letterId).toBe('first');
    });

    it('takes the owner away on any transition but a claim (a sweep or a replay fences the old worker off)', async () => {
      const id = 'inowner000000000000000003';
      await held(id, 'w:1');
      await store.transition(id, ['processing'], 'failed', 3, { errorCode: 'JobLost' });
      expect(await store.isOwner(id, 'w:1')).toBe(false);
      expect(await store.checkpoint(id, 'w:1', { draftRequestedAt: 4 })).toBe('notowner');
    });

    it('notes stray drafts whoever holds the intake, each once, never the letter the record names', async () => {
      const id = 'inowner000000000000000004';
      await held(id, 'w:1');
      await store.checkpoint(id, 'w:1', { letterId: 'the-letter' }, 'letterId');
      expect(await store.addStrayDraft(id, { letterId: 'stray-1', at: 10 })).toBe(true);
      expect(await store.addStrayDraft(id, { letterId: 'stray-1', at: 11 })).toBe(false);
      expect(await store.addStrayDraft(id, { letterId: 'the-letter', at: 12 })).toBe(false);
      expect(await store.addStrayDraft(id, { requestedAt: 1_795_000_000_123, at: 13 })).toBe(true);
      expect(await store.addStrayDraft(id, { requestedAt: 1_795_000_000_123, at: 14 })).toBe(false);
      expect((await store.get(id))?.strayDrafts).toEqual([
        { letterId: 'stray-1', at: 10 },
        { requestedAt: 1_795_000_000_123, at: 13 },
      ]);
    });
  });
});
