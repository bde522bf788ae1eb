// The file store's batch buffers: the bytes of a batch are exactly its chunks', a buffer is used
// again only after its batch was released, and no more than the bound is held.
import { describe, expect, it } from 'vitest';
import { BatchBuffers } from '../../src/raw-store/batch-buffers.js';

const chunks = (text: string, size: number): Buffer[] =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) => Buffer.from(text.slice(i * size, (i + 1) * size)));

describe('batch buffers', () => {
  it('gathers the chunks into one batch of exactly their bytes, in order', () => {
    const buffers = new BatchBuffers(64, 2);
    const batch = buffers.gather(chunks('the quick brown fox jumps over the lazy dog', 5), 43);
    expect(batch.toString()).toBe('the quick brown fox jumps over the lazy dog');
  });

  it('never hands out a buffer whose batch was not released', () => {
    const buffers = new BatchBuffers(16, 4);
    const first = buffers.gather([Buffer.from('aaaa')], 4);
    const second = buffers.gather([Buffer.from('bbbb')], 4);
    expect(second.buffer).not.toBe(first.buffer);
    expect([first.toString(), second.toString()]).toEqual(['aaaa', 'bbbb']);
  });

  it('uses a released buffer again, with the new bytes only', () => {
    const buffers = new BatchBuffers(16, 4);
    const first = buffers.gather([Buffer.from('0123456789')], 10);
    buffers.release(first);
    const second = buffers.gather([Buffer.from('ab')], 2);
    expect(second.buffer).toBe(first.buffer);
    expect(second.toString()).toBe('ab');
  });

  it('holds at most its bound of unused buffers', () => {
    const buffers = new BatchBuffers(16, 2);
    const batches = [1, 2, 3].map(() => buffers.gather([Buffer.from('x')], 1));
    for (const batch of batches) buffers.release(batch);
    expect(buffers.held).toBe(2);
  });

  it('gives a batch larger than its buffers a buffer of its own, never kept', () => {
    const buffers = new BatchBuffers(8, 2);
    const big = buffers.gather(chunks('0123456789abcdef', 3), 16);
    expect(big.toString()).toBe('0123456789abcdef');
    buffers.release(big);
    expect(buffers.held).toBe(0);
  });
});
