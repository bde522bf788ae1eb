import { describe, expect, it } from 'vitest';
import type { IntakeRecord } from '../../src/intake/record.js';
import { noticeFor, wantsNotice } from '../../src/notices/policy.js';

const passed = {
  from: 'pass: one From address, letters@acme.example',
  spf: 'pass: SPF pass for acme.example from 127.0.0.1',
  alignment: 'pass: acme.example aligned with acme.example',
  dkim: 'pass: d=acme.example aligned',
};
const record = (over: Partial<IntakeRecord> = {}): IntakeRecord => ({
  intakeId: 'in0123456789abcdef01234567',
  state: 'rejected',
  receivedAt: 1,
  envelopeFrom: 'bounce@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '127.0.0.1',
  helo: 'mta.acme.example',
  from: 'letters@acme.example',
  subject: 'Bill',
  messageId: '<m1@acme.example>',
  sizeBytes: 100,
  auth: passed,
  attempts: 1,
  reasonCode: 'NoPdfAttachment',
  reason: 'The message carries no PDF attachment.',
  timeline: {},
  ...over,
});
const headers = (...lines: string[]): string => `${['From: letters@acme.example', 'Subject: Bill', ...lines].join('\r\n')}\r\n`;
const optedIn = { notify: ['submitted'] as const };

describe('whether an outcome earns its sender a notice', () => {
  it("sends a portal upload's news to the user who uploaded it, with no e-mail authentication to check", () => {
    const upload = record({ channel: 'web', uploadedBy: 'clerk@acme.example', auth: {}, envelopeFrom: '' });
    expect(noticeFor(upload, 'rejected', undefined, headers())).toEqual({ due: true, to: 'clerk@acme.example' });
    expect(noticeFor({ ...upload, uploadedBy: undefined }, 'rejected', undefined, headers())).toMatchObject({ due: false });
  });

  it('sends bad news to the authenticated From address, not to the envelope sender', () => {
    expect(noticeFor(record(), 'rejected', undefined, headers())).toEqual({ due: true, to: 'letters@acme.example' });
    expect(noticeFor(record({ state: 'failed' }), 'failed', undefined, headers('Auto-Submitted: no'))).toEqual({
      due: true,
      to: 'letters@acme.example',
    });
  });

  it.each([
    ['a null envelope sender', record({ envelopeFrom: '' }), headers(), /null envelope sender/],
    ['Auto-Submitted: auto-generated', record(), headers('Auto-Submitted: auto-generated'), /Auto-Submitted: auto-generated/],
    [
      'Auto-Submitted: auto-replied with a parameter, in any case',
      record(),
      headers('auto-submitted: Auto-Replied; owner-email=x@y'),
      /Auto-Submitted: auto-replied/,
    ],
    ['a folded Auto-Submitted field', record(), headers('Auto-Submitted:', ' auto-notified'), /Auto-Submitted: auto-notified/],
    ['Precedence: bulk', record(), headers('Precedence: bulk'), /Precedence: bulk/],
    ['Precedence: list', record(), headers('Precedence: LIST'), /Precedence: list/],
    ['Precedence: junk', record(), headers('Precedence: junk'), /Precedence: junk/],
    [
      'an unauthenticated From (DKIM failed)',
      record({ auth: { ...passed, dkim: 'fail: no passing DKIM signature' } }),
      headers(),
      /not authenticated \(dkim\)/,
    ],
    ['a record without authentication results', record({ auth: {} }), headers(), /not authenticated \(from, spf, alignment, dkim\)/],
    ['no single From address', record({ from: '' }), headers(), /not authenticated/],
    ['a raw message that is gone', record(), undefined, /original message is gone/],
    ['an outcome that changed since (replayed)', record({ state: 'processing' }), headers(), /now processing, not rejected/],
  ] as const)('suppresses the notice for %s, saying why', (_what, r, h, why) => {
    const decision = noticeFor(r, 'rejected', undefined, h);
    expect(decision.due).toBe(false);
    if (!decision.due) expect(decision.reason).toMatch(why);
  });

  it('lets Precedence: first-class and Auto-Submitted: no through', () => {
    expect(noticeFor(record(), 'rejected', undefined, headers('Precedence: first-class', 'Auto-Submitted: no')).due).toBe(true);
  });

  it('confirms a submitted letter to a sender who asked for it, and to any sender once the intake had failed', () => {
    const submitted = record({ state: 'submitted', letterId: 'L1' });
    expect(noticeFor(submitted, 'submitted', undefined, headers())).toEqual({
      due: false,
      reason: 'the sender did not ask for confirmations',
    });
    expect(noticeFor(submitted, 'submitted', { notify: [] }, headers()).due).toBe(false);
    expect(noticeFor(submitted, 'submitted', optedIn, headers())).toEqual({ due: true, to: 'letters@acme.example' });
    const replayed = { ...submitted, earlierRuns: [{ timeline: { failed: 1 }, errorCode: 'ServiceUnavailable' }] };
    expect(noticeFor(replayed, 'submitted', { notify: [] }, headers())).toEqual({ due: true, to: 'letters@acme.example' });
    expect(wantsNotice('submitted', undefined, false)).toBe(false);
    expect(wantsNotice('submitted', undefined, true)).toBe(true);
    expect(wantsNotice('submitted', optedIn, false)).toBe(true);
    expect(wantsNotice('rejected', undefined, false)).toBe(true);
    expect(wantsNotice('failed', { notify: [] }, false)).toBe(true);
  });
});
