import { getDefaultHighWaterMark } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { DEFAULT_BATCH_BYTES } from '../../src/raw-store/file-store.js';
import { PART_BYTES } from '../../src/raw-store/s3-store.js';
import { listenerProcessCount } from '../../src/runtime/listener-part.js';
import { MAX_HEADER_SCAN_BYTES } from '../../src/smtp/header-fields.js';
import { ADMIT_BYTES, MAX_CHUNK_BYTES, minimumShareBytes } from '../../src/smtp/memory-budget.js';
import { HEAD_COPIES, heldBytes, MAX_LINE_BYTES } from '../../src/smtp/message-collector.js';

const MiB = 1024 * 1024;

describe('how many listener processes share the memory budget', () => {
  it('one maximal message needs what the collector accounts for it at its largest, and the admission room', () => {
    // The collector's parts at their largest: a 1 MiB header block, a 1 MiB unfinished line, a socket read.
    const parts = { head: MAX_HEADER_SCAN_BYTES, line: MAX_LINE_BYTES, chunk: MAX_CHUNK_BYTES };
    const s3Buffered = PART_BYTES + getDefaultHighWaterMark(false);
    expect(minimumShareBytes('s3')).toBe(heldBytes({ ...parts, buffered: s3Buffered }) + ADMIT_BYTES);
    expect(minimumShareBytes('file')).toBe(heldBytes({ ...parts, buffered: 2 * DEFAULT_BATCH_BYTES }) + ADMIT_BYTES);
    expect(heldBytes({ head: 1, line: 10, buffered: 100, chunk: 1000 })).toBe(HEAD_COPIES * 1 + 10 + 100 + 1000);
  });

  it('refuses an SMTP_PROCESSES whose share of SMTP_MEMORY_BUDGET_BYTES is below one maximal message, naming both', () => {
    const tooMany = (): number => listenerProcessCount({ configured: 24, cores: 2, budgetBytes: 128 * MiB, store: 's3' });
    expect(tooMany).toThrow(ConfigError);
    expect(tooMany).toThrow(/SMTP_PROCESSES.*SMTP_MEMORY_BUDGET_BYTES|SMTP_MEMORY_BUDGET_BYTES.*SMTP_PROCESSES/);
    expect(() => listenerProcessCount({ configured: 256, cores: 2, budgetBytes: 128 * MiB, store: 'file' })).toThrow(ConfigError);
  });

  it('keeps an SMTP_PROCESSES whose share holds one maximal message', () => {
    expect(listenerProcessCount({ configured: 11, cores: 64, budgetBytes: 128 * MiB, store: 's3' })).toBe(11);
    expect(listenerProcessCount({ configured: 18, cores: 64, budgetBytes: 128 * MiB, store: 'file' })).toBe(18);
  });

  it('unset, is one per core, but no more than the budget holds maximal messages (and at least one)', () => {
    expect(listenerProcessCount({ configured: undefined, cores: 4, budgetBytes: 128 * MiB, store: 's3' })).toBe(4);
    expect(listenerProcessCount({ configured: undefined, cores: 64, budgetBytes: 128 * MiB, store: 's3' })).toBe(11);
    expect(listenerProcessCount({ configured: undefined, cores: 64, budgetBytes: 128 * MiB, store: 'file' })).toBe(18);
    expect(listenerProcessCount({ configured: undefined, cores: 8, budgetBytes: 4 * MiB, store: 'file' })).toBe(1);
  });
});
