import { describe, expect, it } from 'vitest';
import { sessionAction } from '../../src/sender-api/session-policy.js';

describe('sessionAction', () => {
  const session = { endsAtMs: 1_000_000 };
  const margin = 60_000;

  it.each([
    ['no session', undefined, 0, 'login'],
    ['long before the margin', session, 900_000, 'use'],
    ['just before the margin', session, 939_999, 'use'],
    ['at the start of the margin', session, 940_000, 'refresh'],
    ['inside the margin', session, 999_999, 'refresh'],
    ['at expiry', session, 1_000_000, 'login'],
    ['after expiry', session, 2_000_000, 'login'],
  ] as const)('with %s it says %s', (_case, s, now, action) => {
    expect(sessionAction(s, now, margin)).toBe(action);
  });
});
