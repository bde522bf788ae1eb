// The shared directory fsync (src/raw-store/group-sync.ts) with an fsync the test finishes by
// hand: who starts at once, who waits for the next, and what a failure does.
import { describe, expect, it, vi } from 'vitest';
import { groupSync } from '../../src/raw-store/group-sync.js';

/** An fsync the test ends: each call is kept until finish() or fail() is called on it. */
function heldSyncs() {
  const calls: { finish: () => void; fail: (err: Error) => void }[] = [];
  const syncOnce = (): Promise<void> =>
    new Promise<void>((finish, fail) => {
      calls.push({ finish, fail });
    });
  return { calls, syncOnce };
}

/** The callers' outcomes so far, in the order they were asked. */
function outcomes(promises: readonly Promise<void>[]) {
  const seen: string[] = promises.map(() => 'waiting');
  promises.forEach((p, i) => {
    p.then(
      () => {
        seen[i] = 'synced';
      },
      () => {
        seen[i] = 'failed';
      },
    );
  });
  return seen;
}

const settle = (): Promise<void> => new Promise((r) => setImmediate(r));
const SLOW = { maxWaitMs: 60_000, max: 32 };

describe('a directory fsync shared by the commits that ask together', () => {
  it('starts a lone caller’s fsync at once, without waiting for the window', () => {
    const { calls, syncOnce } = heldSyncs();
    const group = groupSync(syncOnce, SLOW, (err) => err);
    void group.sync();
    expect(calls).toHaveLength(1);
  });

  it('never lets a caller join an fsync already running: callers during it share the next one', async () => {
    const { calls, syncOnce } = heldSyncs();
    const group = groupSync(syncOnce, SLOW, (err) => err);
    const first = group.sync();
    const later = [group.sync(), group.sync(), group.sync()];
    const seen = outcomes([first, ...later]);
    expect(calls).toHaveLength(1);
    calls[0]?.finish();
    await settle();
    expect(seen).toEqual(['synced', 'waiting', 'waiting', 'waiting']);
    expect(calls).toHaveLength(2); // the three share the second fsync, started when the first ended
    calls[1]?.finish();
    await settle();
    expect(seen).toEqual(['synced', 'synced', 'synced', 'synced']);
  });

  it('starts the next fsync beside the running one once `max` callers have gathered', () => {
    const { calls, syncOnce } = heldSyncs();
    const group = groupSync(syncOnce, { maxWaitMs: 60_000, max: 2 }, (err) => err);
    void group.sync();
    void group.sync();
    expect(calls).toHaveLength(1);
    void group.sync();
    expect(calls).toHaveLength(2);
  });

  it('fails every caller of a failed fsync and of every later one, and never fsyncs again', async () => {
    const { calls, syncOnce } = heldSyncs();
    const broken = new Error('the store is broken');
    const group = groupSync(syncOnce, SLOW, () => broken);
    const first = group.sync();
    const gathered = [group.sync(), group.sync()];
    const seen = outcomes([first, ...gathered]);
    calls[0]?.fail(new Error('EIO'));
    await settle();
    expect(seen).toEqual(['failed', 'failed', 'failed']);
    await expect(group.sync()).rejects.toBe(broken);
    expect(calls).toHaveLength(1);
  });
});

describe('the window of a gathered batch', () => {
  it('starts a gathered batch beside the running fsync once `maxWaitMs` passed since its first caller came', async () => {
    vi.useFakeTimers();
    try {
      const { calls, syncOnce } = heldSyncs();
      const group = groupSync(syncOnce, { maxWaitMs: 5, max: 32 }, (err) => err);
      const first = group.sync();
      const gathered = [group.sync(), group.sync()];
      const seen = outcomes([first, ...gathered]);
      await vi.advanceTimersByTimeAsync(4);
      expect(calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toHaveLength(2); // the running one is still held
      calls[1]?.finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual(['waiting', 'synced', 'synced']);
      calls[0]?.finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual(['synced', 'synced', 'synced']);
    } finally {
      vi.useRealTimers();
    }
  });

  it('fails a batch whose fsync ran beside a failing one, even though its own succeeded', async () => {
    vi.useFakeTimers();
    try {
      const { calls, syncOnce } = heldSyncs();
      const broken = new Error('the store is broken');
      const group = groupSync(syncOnce, { maxWaitMs: 5, max: 32 }, () => broken);
      const first = group.sync();
      const beside = group.sync();
      const seen = outcomes([first, beside]);
      await vi.advanceTimersByTimeAsync(5);
      expect(calls).toHaveLength(2);
      calls[0]?.fail(new Error('EIO'));
      await vi.advanceTimersByTimeAsync(0);
      calls[1]?.finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(seen).toEqual(['failed', 'failed']);
      await expect(beside).rejects.toBe(broken);
    } finally {
      vi.useRealTimers();
    }
  });
});
