// TOTP as every authenticator app computes it (RFC 6238 Appendix B's SHA-1 vectors, 6 digits),
// one step of skew either way, and each code accepted once per step.
import { describe, expect, it } from 'vitest';
import { backupCodeHash, matchingStep, newBackupCodes } from '../../src/portal/totp.js';

// RFC 6238 Appendix B: the SHA-1 seed "12345678901234567890" in base32
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('TOTP codes', () => {
  it.each([
    [59, '287082'],
    [1_111_111_109, '081804'],
    [1_234_567_890, '005924'],
    [2_000_000_000, '279037'],
  ])('at %i s the code is %s (RFC 6238 Appendix B, last six digits)', (seconds, code) => {
    expect(matchingStep(RFC_SECRET, code, seconds * 1000)).toBe(Math.floor(seconds / 30));
  });

  it('accepts the step before and after (clock skew), and nothing further', () => {
    const at = 1_234_567_890_000;
    expect(matchingStep(RFC_SECRET, '005924', at + 30_000)).toBe(Math.floor(at / 30_000));
    expect(matchingStep(RFC_SECRET, '005924', at - 30_000)).toBe(Math.floor(at / 30_000));
    expect(matchingStep(RFC_SECRET, '005924', at + 61_000)).toBeUndefined();
    expect(matchingStep(RFC_SECRET, '00592', at)).toBeUndefined();
  });

  it('makes ten distinct backup codes whose hash ignores the dash', () => {
    const codes = newBackupCodes();
    expect(new Set(codes).size).toBe(10);
    const first = codes[0] ?? '';
    expect(first).toMatch(/^\d{5}-\d{5}$/);
    expect(backupCodeHash(first)).toBe(backupCodeHash(first.replace('-', '')));
  });
});
