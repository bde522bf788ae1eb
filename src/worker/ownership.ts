// Fencing for a worker whose job lock can lapse while it still runs (a Redis stall, a blocked
// event loop, a stopped process): BullMQ then hands the job to another worker, and the first one
// must not write another checkpoint or call the Sender API again. The intake record names its
// owner (the job's lock token, set when processing starts); every checkpoint write is a Lua
// script that refuses a caller who is not the owner, and every API call first checks ownership.
// A check and the call after it are not atomic; the write-once letter id closes that gap: only
// the letter id the record names is ever submitted, and submitting it twice makes one letter.
// A checkpoint write that just succeeded is such a check (it compared the owner in Redis a moment
// ago): the API call right after it does not ask Redis again (FreshOwnership). With
// REDIS_REPLICAS_ACK, a checkpoint counts once the replicas wanted hold it: a failover after the
// API call must not lose the draft marker or the letter id, or the re-run would make a second letter.
import { OwnershipLost } from '../errors.js';
import type { IntakeRecord } from '../intake/record.js';
import type { IntakeStore } from '../intake/store.js';
import type { Logger } from '../log.js';
import type { Checkpoint, LetterApi } from './submit-letter.js';

export interface Owner {
  readonly store: IntakeStore;
  readonly intakeId: string;
  /** The BullMQ lock token of the job run. */
  readonly token: string;
}

/** Throws OwnershipLost unless `owner` still holds the intake. */
export async function assertOwner(owner: Owner): Promise<void> {
  if (!(await owner.store.isOwner(owner.intakeId, owner.token))) {
    throw new OwnershipLost(`intake ${owner.intakeId} is no longer held by this job run`);
  }
}

/**
 * Ownership proven by the last fenced write, good for one API call: the next call uses it up
 * instead of checking again; any other call checks as always.
 */
export class FreshOwnership {
  #proven = false;

  proven(): void {
    this.#proven = true;
  }

  /** Whether a fenced write proved ownership since the last call; forgets it either way. */
  take(): boolean {
    const proven = this.#proven;
    this.#proven = false;
    return proven;
  }
}

/** The exactly-once checkpoint on the intake record, written only while `owner` holds it. */
export function ownedCheckpoint(
  owner: Owner,
  record: IntakeRecord,
  clock: () => number,
  log: Logger,
  fresh: FreshOwnership = new FreshOwnership(),
  /** Called before a checkpoint's write; the function it returns waits for the replicas (redis-outcome.ts). */
  replicated: () => () => Promise<void> = () => () => Promise.resolve(),
): Checkpoint {
  const write = async (update: { draftRequestedAt: number }): Promise<void> => {
    fresh.take(); // an earlier proof does not outlive this write
    const held = replicated();
    const result = await owner.store.checkpoint(owner.intakeId, owner.token, update);
    if (result !== 'ok') throw new OwnershipLost(`intake ${owner.intakeId} is no longer held by this job run`);
    // On the replicas wanted before the API call it guards, or that call is not made.
    await held();
    fresh.proven();
  };
  return {
    letterId: record.letterId,
    draftStatus: record.draftStatus,
    draftRequestedAt: record.draftRequestedAt,
    markDraftRequested: (at) => write({ draftRequestedAt: at }),
    async recordLetterId(letterId, draftStatus) {
      fresh.take(); // an earlier proof does not outlive this write
      const held = replicated();
      const result = await owner.store.checkpointLetter(owner.intakeId, owner.token, letterId, draftStatus);
      if (result === 'conflict') throw new OwnershipLost(`intake ${owner.intakeId} names another letter already`);
      if (result === 'notowner') throw new OwnershipLost(`intake ${owner.intakeId} is no longer held by this job run`);
      if (result === 'ok') await held(); // the letter id on the replicas before the submit
      fresh.proven(); // 'taken' too: the script compared the owner before it looked at the letter
      return result;
    },
    async recordStrayDraft(stray) {
      fresh.take(); // not a fenced write: whatever was proven before is not carried past it
      if (await owner.store.addStrayDraft(owner.intakeId, { ...stray, at: clock() })) {
        log.warn({ event: 'intake.stray_draft', ...stray }, 'a draft will stay unsubmitted');
      }
    },
  };
}

/** The letter API with an ownership check before every call (or a fenced write just before it). */
export function ownedLetterApi(api: LetterApi, owner: Owner, fresh: FreshOwnership = new FreshOwnership()): LetterApi {
  const check = async (): Promise<void> => {
    if (!fresh.take()) await assertOwner(owner);
  };
  return {
    saveDraft: async (letter, signal) => {
      await check();
      return api.saveDraft(letter, signal);
    },
    submit: async (id, letter, signal) => {
      await check();
      return api.submit(id, letter, signal);
    },
    getLetter: async (id, signal) => {
      await check();
      return api.getLetter(id, signal);
    },
    findDraft: async (letter, pdfSha256s, since, signal) => {
      await check();
      return api.findDraft(letter, pdfSha256s, since, signal);
    },
  };
}
