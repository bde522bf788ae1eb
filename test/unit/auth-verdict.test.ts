// The authentication policy (docs/design.md §2.3), case by case, on synthetic summaries.
import { describe, expect, it } from 'vitest';
import type { AuthSummary, DkimSignatureSummary, SpfSummary } from '../../src/auth/summary.js';
import { type AuthPolicy, type CheckOutcome, judgeAuthentication } from '../../src/auth/verdict.js';

const signature = (overrides: Partial<DkimSignatureSummary> = {}): DkimSignatureSummary => ({
  signingDomain: 'acme.example',
  selector: 'rsa2048',
  algorithm: 'rsa-sha256',
  result: 'pass',
  comment: undefined,
  bodyLengthTag: undefined,
  coversWholeBody: true,
  ...overrides,
});

const spf = (overrides: Partial<SpfSummary> = {}): SpfSummary => ({
  domain: 'bounce.acme.example',
  identity: 'mailfrom',
  result: 'pass',
  clientIp: '203.0.113.9',
  comment: undefined,
  ...overrides,
});

const summary = (overrides: Partial<AuthSummary> = {}): AuthSummary => ({
  fromAddresses: ['letters@acme.example'],
  fromFields: 1,
  spf: spf(),
  dkim: [signature()],
  headers: '',
  ...overrides,
});

type Checks = readonly [from: CheckOutcome, spf: CheckOutcome, alignment: CheckOutcome, dkim: CheckOutcome];

interface Case {
  readonly name: string;
  readonly auth: AuthSummary;
  readonly outcome: 'pass' | 'fail' | 'temporary';
  /** Fragments the reason must contain (none for a pass). */
  readonly reason?: readonly string[];
  readonly checks: Checks;
  readonly policy?: AuthPolicy;
}

const ALL_PASS: Checks = ['pass', 'pass', 'pass', 'pass'];
const FROM_FAILED: Checks = ['fail', 'pass', 'skipped', 'skipped'];

const cases: readonly Case[] = [
  // pass
  { name: 'SPF and DKIM pass, both aligned', auth: summary(), outcome: 'pass', checks: ALL_PASS },
  {
    name: 'subdomain signer and subdomain envelope align relaxed',
    auth: summary({ spf: spf({ domain: 'bounce.mail.acme.example' }), dkim: [signature({ signingDomain: 'mail.acme.example' })] }),
    outcome: 'pass',
    checks: ALL_PASS,
  },
  {
    name: 'null sender: the HELO domain is the SPF identity',
    auth: summary({ spf: spf({ domain: 'mta.acme.example', identity: 'helo' }) }),
    outcome: 'pass',
    checks: ALL_PASS,
  },
  {
    name: 'one good signature among failing and unaligned ones',
    auth: summary({
      dkim: [
        signature({ signingDomain: 'evil.example' }),
        signature({ result: 'fail', comment: 'bad signature' }),
        signature({ selector: 'ed25519', algorithm: 'ed25519-sha256' }),
      ],
    }),
    outcome: 'pass',
    checks: ALL_PASS,
  },
  {
    name: 'a temperror on another signature does not matter once one passes',
    auth: summary({ dkim: [signature({ selector: 'old', result: 'temperror' }), signature()] }),
    outcome: 'pass',
    checks: ALL_PASS,
  },
  {
    name: 'an l= that covers the whole body counts',
    auth: summary({ dkim: [signature({ bodyLengthTag: 1200, coversWholeBody: true })] }),
    outcome: 'pass',
    checks: ALL_PASS,
  },
  {
    name: 'domains compare case-insensitively',
    auth: summary({ fromAddresses: ['Letters@ACME.Example'], dkim: [signature({ signingDomain: 'Acme.Example' })] }),
    outcome: 'pass',
    checks: ALL_PASS,
  },

  // From
  {
    name: 'no From address',
    auth: summary({ fromAddresses: [] }),
    outcome: 'fail',
    reason: ['the From header holds no address'],
    checks: FROM_FAILED,
  },
  {
    name: 'two From addresses',
    auth: summary({ fromAddresses: ['letters@acme.example', 'billing@acme.example'] }),
    outcome: 'fail',
    reason: ['the From header holds 2 addresses (letters@acme.example, billing@acme.example)'],
    checks: FROM_FAILED,
  },
  {
    name: 'two From header fields',
    auth: summary({ fromAddresses: ['letters@acme.example', 'billing@acme.example'], fromFields: 2 }),
    outcome: 'fail',
    reason: ['the message has 2 From header fields'],
    checks: FROM_FAILED,
  },
  {
    name: 'a From address without a domain',
    auth: summary({ fromAddresses: ['letters'] }),
    outcome: 'fail',
    reason: ['the From address letters has no domain'],
    checks: FROM_FAILED,
  },
  {
    name: 'a From failure is permanent even when SPF hit a temperror',
    auth: summary({ fromAddresses: [], spf: spf({ result: 'temperror' }) }),
    outcome: 'fail',
    reason: ['the From header holds no address'],
    checks: ['fail', 'temporary', 'skipped', 'skipped'],
  },

  // SPF
  ...(['fail', 'softfail', 'neutral', 'none', 'permerror'] as const).map(
    (result): Case => ({
      name: `SPF ${result}`,
      auth: summary({ spf: spf({ result }) }),
      outcome: 'fail',
      reason: [`SPF ${result} for bounce.acme.example from 203.0.113.9`],
      checks: ['pass', 'fail', 'pass', 'pass'],
    }),
  ),
  {
    name: 'SPF fail for the HELO identity names the HELO name',
    auth: summary({ spf: spf({ domain: 'mta.acme.example', identity: 'helo', result: 'fail' }) }),
    outcome: 'fail',
    reason: ['SPF fail for HELO name mta.acme.example from 203.0.113.9'],
    checks: ['pass', 'fail', 'pass', 'pass'],
  },
  {
    name: 'SPF without a domain',
    auth: summary({ spf: spf({ domain: '', result: 'none' }) }),
    outcome: 'fail',
    reason: ['SPF none: no envelope domain to check', 'no SPF domain to align with acme.example'],
    checks: ['pass', 'fail', 'fail', 'pass'],
  },
  {
    name: 'SPF passes for an unaligned domain',
    auth: summary({ spf: spf({ domain: 'evil.example' }) }),
    outcome: 'fail',
    reason: ['SPF domain evil.example is not aligned with acme.example'],
    checks: ['pass', 'pass', 'fail', 'pass'],
  },
  {
    name: 'sibling domains under a public suffix are not aligned',
    auth: summary({
      fromAddresses: ['letters@acme.co.uk'],
      spf: spf({ domain: 'evil.co.uk' }),
      dkim: [signature({ signingDomain: 'acme.co.uk' })],
    }),
    outcome: 'fail',
    reason: ['SPF domain evil.co.uk is not aligned with acme.co.uk'],
    checks: ['pass', 'pass', 'fail', 'pass'],
  },

  // DKIM
  {
    name: 'unsigned message',
    auth: summary({ dkim: [] }),
    outcome: 'fail',
    reason: ['no passing DKIM signature aligned with acme.example (found: none, the message is not signed)'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },
  {
    name: 'a passing signature by an unaligned domain',
    auth: summary({ dkim: [signature({ signingDomain: 'evil.example' })] }),
    outcome: 'fail',
    reason: ['no passing DKIM signature aligned with acme.example (found: d=evil.example pass, unaligned)'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },
  {
    name: 'an aligned signature that failed (mailauth still marks it aligned)',
    auth: summary({ dkim: [signature({ result: 'fail', comment: 'bad signature' })] }),
    outcome: 'fail',
    reason: ['(found: d=acme.example fail (bad signature))'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },
  {
    name: 'an aligned signature whose body hash did not verify',
    auth: summary({ dkim: [signature({ result: 'neutral', comment: 'body hash did not verify' })] }),
    outcome: 'fail',
    reason: ['(found: d=acme.example neutral (body hash did not verify))'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },
  {
    name: 'an aligned signature with l= shorter than the body',
    auth: summary({ dkim: [signature({ bodyLengthTag: 228, coversWholeBody: false })] }),
    outcome: 'fail',
    reason: ['(found: d=acme.example pass, l=228 leaves part of the body unsigned)'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },
  {
    name: 'a temperror on an unaligned signature is not worth a retry',
    auth: summary({ dkim: [signature({ signingDomain: 'evil.example', result: 'temperror', comment: 'DNS failure: ETIMEOUT' })] }),
    outcome: 'fail',
    reason: ['d=evil.example temperror (DNS failure: ETIMEOUT), unaligned'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },
  {
    name: 'a temperror on a partial-body signature is not worth a retry',
    auth: summary({ dkim: [signature({ result: 'temperror', bodyLengthTag: 10, coversWholeBody: false })] }),
    outcome: 'fail',
    reason: ['l=10 leaves part of the body unsigned'],
    checks: ['pass', 'pass', 'pass', 'fail'],
  },

  // temporary
  {
    name: 'SPF temperror',
    auth: summary({ spf: spf({ result: 'temperror' }) }),
    outcome: 'temporary',
    reason: ['SPF temperror for bounce.acme.example from 203.0.113.9'],
    checks: ['pass', 'temporary', 'pass', 'pass'],
  },
  {
    name: 'the only aligned signature hit a temperror',
    auth: summary({
      dkim: [signature({ signingDomain: 'evil.example' }), signature({ result: 'temperror', comment: 'DNS failure: ESERVFAIL' })],
    }),
    outcome: 'temporary',
    reason: ['DKIM key for d=acme.example s=rsa2048 could not be fetched (DNS failure: ESERVFAIL)'],
    checks: ['pass', 'pass', 'pass', 'temporary'],
  },
  {
    name: 'SPF and DKIM both hit temperrors',
    auth: summary({ spf: spf({ result: 'temperror' }), dkim: [signature({ result: 'temperror' })] }),
    outcome: 'temporary',
    reason: ['SPF temperror for bounce.acme.example', 'DKIM key for d=acme.example s=rsa2048 could not be fetched'],
    checks: ['pass', 'temporary', 'pass', 'temporary'],
  },
  {
    name: 'a definite SPF failure wins over a DKIM temperror',
    auth: summary({ spf: spf({ result: 'softfail' }), dkim: [signature({ result: 'temperror' })] }),
    outcome: 'fail',
    reason: ['SPF softfail for bounce.acme.example from 203.0.113.9'],
    checks: ['pass', 'fail', 'pass', 'temporary'],
  },
  {
    name: 'an unaligned SPF domain wins over an SPF temperror',
    auth: summary({ spf: spf({ domain: 'evil.example', result: 'temperror' }) }),
    outcome: 'fail',
    reason: ['SPF domain evil.example is not aligned with acme.example'],
    checks: ['pass', 'temporary', 'fail', 'pass'],
  },

  // strict alignment policy
  {
    name: 'strict alignment refuses subdomains',
    policy: { alignment: 'strict' },
    auth: summary({ dkim: [signature({ signingDomain: 'mail.acme.example' })] }),
    outcome: 'fail',
    reason: ['SPF domain bounce.acme.example is not aligned with acme.example (strict)', 'd=mail.acme.example pass, unaligned'],
    checks: ['pass', 'pass', 'fail', 'fail'],
  },
  {
    name: 'strict alignment accepts identical domains',
    policy: { alignment: 'strict' },
    auth: summary({ spf: spf({ domain: 'acme.example' }) }),
    outcome: 'pass',
    checks: ALL_PASS,
  },
];

describe('judgeAuthentication', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const verdict = judgeAuthentication(c.auth, c.policy);

    expect(verdict.outcome).toBe(c.outcome);
    const { from, spf: spfCheck, alignment, dkim } = verdict.checks;
    expect([from.outcome, spfCheck.outcome, alignment.outcome, dkim.outcome]).toEqual(c.checks);
    if (verdict.outcome === 'pass') {
      expect(c.reason).toBeUndefined();
    } else {
      for (const fragment of c.reason ?? []) expect(verdict.reason).toContain(fragment);
    }
  });

  it('gives every check a sentence for the intake record', () => {
    const { checks } = judgeAuthentication(summary());

    expect(checks).toEqual({
      from: { outcome: 'pass', detail: 'one From address, letters@acme.example' },
      spf: { outcome: 'pass', detail: 'SPF pass for bounce.acme.example from 203.0.113.9' },
      alignment: { outcome: 'pass', detail: 'SPF domain bounce.acme.example is aligned with acme.example (relaxed)' },
      dkim: { outcome: 'pass', detail: 'DKIM pass for d=acme.example s=rsa2048, aligned with acme.example' },
    });
  });

  it('names only the failed checks in the reason', () => {
    const verdict = judgeAuthentication(summary({ spf: spf({ result: 'fail' }), dkim: [] }));

    expect(verdict).toMatchObject({
      outcome: 'fail',
      reason:
        'SPF fail for bounce.acme.example from 203.0.113.9; ' +
        'no passing DKIM signature aligned with acme.example (found: none, the message is not signed)',
    });
  });
});

describe('judgeAuthentication with the sender’s DKIM selectors', () => {
  const pinned = { alignment: 'relaxed' as const, dkimSelectors: ['hk1'] };

  it.each([
    ['a listed selector, any case', [signature({ selector: 'HK1' })], 'pass'],
    ['another passing selector beside a listed one', [signature({ selector: 'crm' }), signature({ selector: 'hk1' })], 'pass'],
    ['only another passing selector', [signature({ selector: 'crm' })], 'fail'],
    ['a listed selector whose key could not be fetched', [signature({ selector: 'hk1', result: 'temperror' })], 'temporary'],
    ['another selector whose key could not be fetched', [signature({ selector: 'crm', result: 'temperror' })], 'fail'],
  ] as const)('%s: %s', (_what, dkim, outcome) => {
    expect(judgeAuthentication(summary({ dkim }), pinned).checks.dkim.outcome).toBe(outcome);
  });

  it('names the signature’s selector and the listed ones when none counts', () => {
    const verdict = judgeAuthentication(summary({ dkim: [signature({ selector: 'crm' })] }), pinned);
    expect(verdict.checks.dkim.detail).toBe(
      'no passing DKIM signature aligned with acme.example with a selector the sender lists ' +
        '(listed: hk1; found: d=acme.example s=crm pass, selector crm not listed)',
    );
  });
});
