import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { listenerProcessCount } from '../../src/runtime/listener-part.js';
import { minimumShareBytes } from '../../src/smtp/memory-budget.js';

const MiB = 1024 * 1024;

describe('how many listener processes share the memory budget', () => {
  it('one maximal message needs a whole S3 part, five header blocks and the admission room; the file store two batches and five header blocks', () => {
    expect(minimumShareBytes('s3')).toBe(5 * MiB + 5 * MiB + 512 * 1024);
    expect(minimumShareBytes('file')).toBe(2 * 256 * 1024 + 5 * MiB);
  });

  it('refuses an SMTP_PROCESSES whose share of SMTP_MEMORY_BUDGET_BYTES is below one maximal message, naming both', () => {
    const tooMany = (): number => listenerProcessCount({ configured: 24, cores: 2, budgetBytes: 128 * MiB, store: 's3' });
    expect(tooMany).toThrow(ConfigError);
    expect(tooMany).toThrow(/SMTP_PROCESSES.*SMTP_MEMORY_BUDGET_BYTES|SMTP_MEMORY_BUDGET_BYTES.*SMTP_PROCESSES/);
    expect(() => listenerProcessCount({ configured: 256, cores: 2, budgetBytes: 128 * MiB, store: 'file' })).toThrow(ConfigError);
  });

  it('keeps an SMTP_PROCESSES whose share holds one maximal message', () => {
    expect(listenerProcessCount({ configured: 12, cores: 64, budgetBytes: 128 * MiB, store: 's3' })).toBe(12);
    expect(listenerProcessCount({ configured: 23, cores: 64, budgetBytes: 128 * MiB, store: 'file' })).toBe(23);
  });

  it('unset, is one per core, but no more than the budget holds maximal messages (and at least one)', () => {
    expect(listenerProcessCount({ configured: undefined, cores: 4, budgetBytes: 128 * MiB, store: 's3' })).toBe(4);
    expect(listenerProcessCount({ configured: undefined, cores: 64, budgetBytes: 128 * MiB, store: 's3' })).toBe(12);
    expect(listenerProcessCount({ configured: undefined, cores: 64, budgetBytes: 128 * MiB, store: 'file' })).toBe(23);
    expect(listenerProcessCount({ configured: undefined, cores: 8, budgetBytes: 4 * MiB, store: 'file' })).toBe(1);
  });
});
