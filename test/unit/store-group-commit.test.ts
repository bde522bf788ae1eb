// GROUP_COMMIT reaches the listener's raw store alone (src/runtime/store-group-commit.ts).
import { describe, expect, it } from 'vitest';
import { type StoreHolder, storeGroupCommit } from '../../src/runtime/store-group-commit.js';

const ON = { groupCommit: { maxWaitMs: 2, max: 32 } };

describe('which raw store shares its directory fsyncs', () => {
  it.each<[StoreHolder, boolean]>([
    ['listener', true],
    ['worker', false],
    ['portal', false],
    ['start', false],
    ['command', false],
  ])('with GROUP_COMMIT=on, the store of a %s: %s', (holder, grouped) => {
    expect(storeGroupCommit(holder, ON)).toEqual(grouped ? ON.groupCommit : undefined);
  });

  it('with GROUP_COMMIT=off, not even the listener’s', () => {
    expect(storeGroupCommit('listener', { groupCommit: undefined })).toBeUndefined();
  });
});
