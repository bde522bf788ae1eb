// Which end user a request's identifiers name (pure), case by case.
import { describe, expect, it } from 'vitest';
import { judgeEndUser, type Named } from '../../src/sandbox/end-users.js';

const U1 = 'a6d1c2f0-0000-4000-8000-000000000001';
const U2 = 'a6d1c2f0-0000-4000-8000-000000000002';

describe('judgeEndUser', () => {
  it('creates an end user when no identifier names anyone yet', () => {
    expect(judgeEndUser([{ kind: 'email', value: 'a@example.ae', endUserId: undefined }])).toEqual({ create: true });
  });

  it('picks the one end user the known identifiers name, new identifiers beside them', () => {
    const named: Named[] = [
      { kind: 'email', value: 'a@example.ae', endUserId: U1 },
      { kind: 'mobileNumber', value: '+971501234567', endUserId: undefined },
    ];
    expect(judgeEndUser(named)).toEqual({ existing: U1 });
  });

  it.each([
    ['no identifier at all', [], 'InvalidData'],
    [
      'identifiers naming two end users',
      [
        { kind: 'email', value: 'a@example.ae', endUserId: U1 },
        { kind: 'emiratesId', value: '784199012345671', endUserId: U2 },
      ],
      'InvalidData',
    ],
    ['an endUserId never issued', [{ kind: 'endUserId', value: U2, endUserId: undefined }], 'EntityNotFound'],
  ] as const)('refuses %s', (_what, named, errorCode) => {
    const verdict = judgeEndUser(named);
    expect('refuse' in verdict ? verdict.refuse.errorCode : undefined).toBe(errorCode);
  });
});
