// The ownership fence around the Sender API calls: every call is preceded by a check that the
// run still holds the intake, either a question to Redis or a fenced checkpoint write just before.
import { describe, expect, it } from 'vitest';
import { OwnershipLost } from '../../src/errors.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import type { IntakeStore } from '../../src/intake/store.js';
import { createLogger } from '../../src/log.js';
import { FreshOwnership, ownedCheckpoint, ownedLetterApi } from '../../src/worker/ownership.js';
import type { LetterApi } from '../../src/worker/submit-letter.js';

/** A store whose record is held by `holder`, logging what the fence asks of it. */
function fakeStore(holder: { token: string }) {
  const asked: string[] = [];
  const store = {
    async isOwner(_id: string, token: string) {
      asked.push('isOwner');
      return token === holder.token;
    },
    async checkpoint(_id: string, token: string) {
      asked.push('checkpoint');
      return token === holder.token ? 'ok' : 'notowner';
    },
    async checkpointLetter(_id: string, token: string) {
      asked.push('checkpoint');
      return token === holder.token ? 'ok' : 'notowner';
    },
    async addStrayDraft() {
      asked.push('addStrayDraft');
      return true;
    },
  };
  return { store: store as unknown as IntakeStore, asked };
}

const api: LetterApi = {
  saveDraft: async () => ({ id: 'l1', status: 'Saved' }),
  submit: async () => ({ status: 'PendingApproval' }),
  getLetter: async (id) => ({ id, status: 'Saved' }),
  findDraft: async () => ({ kind: 'none' }),
};
const record = {} as IntakeRecord;
const logger = createLogger({ level: 'silent' });
const signal = new AbortController().signal;
const letter = { title: 't', description: '', genderTargeting: 'All' as const, parts: [] };

function fenced(holder: { token: string }) {
  const { store, asked } = fakeStore(holder);
  const owner = { store, intakeId: 'i1', token: 'mine' };
  const fresh = new FreshOwnership();
  return { asked, api: ownedLetterApi(api, owner, fresh), checkpoint: ownedCheckpoint(owner, record, Date.now, logger, fresh) };
}

describe('the ownership fence', () => {
  it('asks Redis before a call that no checkpoint write preceded', async () => {
    const run = fenced({ token: 'mine' });
    await run.api.getLetter('l1', signal);
    await run.api.submit('l1', letter, signal);
    expect(run.asked).toEqual(['isOwner', 'isOwner']);
  });

  it('takes a checkpoint write that just succeeded as the check for the next call only', async () => {
    const run = fenced({ token: 'mine' });
    await run.checkpoint.markDraftRequested(1);
    await run.api.saveDraft(letter, signal);
    await run.api.getLetter('l1', signal);
    await run.checkpoint.recordLetterId('l1', 'Saved');
    await run.api.submit('l1', letter, signal);
    expect(run.asked).toEqual(['checkpoint', 'isOwner', 'checkpoint']);
  });

  it('does not carry a proof past a stray-draft note, which is no fenced write', async () => {
    const run = fenced({ token: 'mine' });
    await run.checkpoint.markDraftRequested(1);
    await run.checkpoint.recordStrayDraft({ requestedAt: 1 });
    await run.api.saveDraft(letter, signal);
    expect(run.asked).toEqual(['checkpoint', 'addStrayDraft', 'isOwner']);
  });

  it('stops a run that lost the intake, at the write and at the next call', async () => {
    const holder = { token: 'mine' };
    const run = fenced(holder);
    await run.checkpoint.markDraftRequested(1);
    holder.token = 'another run';
    await expect(run.checkpoint.recordLetterId('l1', 'Saved')).rejects.toBeInstanceOf(OwnershipLost);
    await expect(run.api.getLetter('l1', signal)).rejects.toBeInstanceOf(OwnershipLost);
    expect(run.asked).toEqual(['checkpoint', 'checkpoint', 'isOwner']);
  });
});
