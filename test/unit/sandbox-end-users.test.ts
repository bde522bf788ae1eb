// Which end user a request's identifiers name (pure), case by case.
import { describe, expect, it } from 'vitest';
import { EndUserRegistry, judgeEndUser, type Named } from '../../src/sandbox/end-users.js';

const U1 = 'a6d1c2f0-0000-4000-8000-000000000001';
const U2 = 'a6d1c2f0-0000-4000-8000-000000000002';

describe('judgeEndUser', () => {
  it('creates an end user when no identifier names anyone yet', () => {
    expect(judgeEndUser([{ kind: 'endUserIdpId', value: 'idp-1', endUserId: undefined }])).toEqual({ create: true });
  });

  it('picks the one end user the known identifiers name, new identifiers beside them', () => {
    const named: Named[] = [
      { kind: 'endUserIdpId', value: 'idp-1', endUserId: U1 },
      { kind: 'endUserEmiratesId', value: '784199012345671', endUserId: undefined },
    ];
    expect(judgeEndUser(named)).toEqual({ existing: U1 });
  });

  it.each([
    ['no identifier at all', []],
    [
      'identifiers naming two end users',
      [
        { kind: 'endUserServiceId', value: U1, endUserId: U1 },
        { kind: 'endUserEmiratesId', value: '784199012345671', endUserId: U2 },
      ],
    ],
  ] satisfies Array<[string, Named[]]>)('refuses %s with InvalidData', (_what, named) => {
    const verdict = judgeEndUser(named);
    expect('refuse' in verdict ? verdict.refuse.errorCode : undefined).toBe('InvalidData');
  });
});

describe('EndUserRegistry', () => {
  it('takes an endUserServiceId it never saw as the end user it names, in lower case', () => {
    expect(new EndUserRegistry().resolve({ endUserServiceId: U1.toUpperCase() })).toBe(U1);
  });

  it('knows an Emirates ID with or without dashes, and an identity provider id, as the end user first named with them', () => {
    const registry = new EndUserRegistry();
    const first = registry.resolve({ endUserIdpId: 'idp-1', endUserEmiratesId: '784-1990-1234567-1' });
    expect([registry.resolve({ endUserEmiratesId: '784199012345671' }), registry.resolve({ endUserIdpId: 'idp-1' })]).toEqual([
      first,
      first,
    ]);
  });

  it('joins a new identifier to the service id it comes with', () => {
    const registry = new EndUserRegistry();
    registry.resolve({ endUserServiceId: U2, endUserIdpId: 'idp-2' });
    expect(registry.resolve({ endUserIdpId: 'idp-2' })).toBe(U2);
  });
});
