// The intake's letter in the raw store wins over Redis: a run starts from the letter `letter/`
// names, a letter Redis names is written there before it can be submitted, and a draft another
// run's marker does not name is never the intake's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OwnershipLost } from '../../src/errors.js';
import { IntakeMarkers } from '../../src/intake/markers.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import { markedCheckpoint } from '../../src/worker/letter-marker.js';
import type { Checkpoint } from '../../src/worker/submit-letter.js';

const dir = mkdtempSync(join(tmpdir(), 'letter-marker-'));
const markers = new IntakeMarkers(fileRawStore({ dir, timeoutMs: 5000 }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The Redis checkpoint as a plain object: what it holds, and the letter ids recorded in it. */
function redisCheckpoint(letterId?: string): Checkpoint & { recorded: string[] } {
  const recorded: string[] = [];
  return {
    recorded,
    letterId,
    draftStatus: letterId === undefined ? undefined : 'Draft',
    draftRequestedAt: undefined,
    markDraftRequested: () => Promise.resolve(),
    recordLetterId: (id) => {
      recorded.push(id);
      return Promise.resolve('ok');
    },
    recordStrayDraft: () => Promise.resolve(),
  };
}

describe('the letter marker beside the Redis checkpoint', () => {
  it('starts a run from the letter the marker names when Redis has none (Redis lost it)', async () => {
    await markers.putLetter({ v: 1, intakeId: 'inmarked1', letterId: 'L-1', draftStatus: 'Draft', at: 1 });
    const checkpoint = await markedCheckpoint(redisCheckpoint(), markers, 'inmarked1', () => 2);
    expect({ letterId: checkpoint.letterId, draftStatus: checkpoint.draftStatus }).toEqual({ letterId: 'L-1', draftStatus: 'Draft' });
  });

  it('writes a letter Redis names into the marker before the run may submit it', async () => {
    const checkpoint = await markedCheckpoint(redisCheckpoint('L-2'), markers, 'inmarked2', () => 2);
    expect(checkpoint.letterId).toBe('L-2');
    expect((await markers.letter('inmarked2'))?.letterId).toBe('L-2');
  });

  it('lets the marker win when Redis names another letter', async () => {
    await markers.putLetter({ v: 1, intakeId: 'inmarked3', letterId: 'L-3', draftStatus: 'Draft', at: 1 });
    const checkpoint = await markedCheckpoint(redisCheckpoint('L-other'), markers, 'inmarked3', () => 2);
    expect(checkpoint.letterId).toBe('L-3');
  });

  it('records a new draft in Redis and the marker', async () => {
    const inner = redisCheckpoint();
    const checkpoint = await markedCheckpoint(inner, markers, 'inmarked4', () => 2);
    expect(await checkpoint.recordLetterId('L-4', 'Draft')).toBe('ok');
    expect({ redis: inner.recorded, marker: (await markers.letter('inmarked4'))?.letterId }).toEqual({ redis: ['L-4'], marker: 'L-4' });
  });

  it('refuses a draft when another run put its letter in the marker first: that draft is never submitted', async () => {
    const checkpoint = await markedCheckpoint(redisCheckpoint(), markers, 'inmarked5', () => 2);
    await markers.putLetter({ v: 1, intakeId: 'inmarked5', letterId: 'L-first', draftStatus: 'Draft', at: 1 });
    await expect(checkpoint.recordLetterId('L-second', 'Draft')).rejects.toBeInstanceOf(OwnershipLost);
    expect((await markers.letter('inmarked5'))?.letterId).toBe('L-first');
  });
});
