// What the CLI says to a person: the status summary, the --port check, the doctor's target.
import { describe, expect, it } from 'vitest';
import { exitCodeOf, fail, ok, warn } from '../../src/doctor/result.js';
import { codeAndReason } from '../../src/intake/reason-text.js';
import type { IntakeRecord } from '../../src/intake/record.js';
import { doctorTarget, judgedFor } from '../../src/runtime/doctor-target.js';
import { portOption } from '../../src/runtime/send-command.js';
import { formatStatus } from '../../src/runtime/status-text.js';

const record: IntakeRecord = {
  intakeId: 'in0123456789abcdef01234567',
  state: 'rejected',
  receivedAt: Date.UTC(2026, 10, 25, 14, 0, 0, 0),
  envelopeFrom: 'bounce@acme.example',
  envelopeTo: ['letters@intake.example'],
  clientIp: '127.0.0.1',
  helo: 'mta.acme.example',
  from: 'letters@acme.example',
  subject: 'Your bill',
  messageId: '<bill@acme.example>',
  sizeBytes: 12_345,
  auth: { spf: 'pass: SPF pass for acme.example from 127.0.0.1' },
  attempts: 1,
  reasonCode: 'PdfActiveContent',
  reason: 'PdfActiveContent: bill.pdf carries JavaScript (OpenAction); send the letter without scripts',
  timeline: {
    received: Date.UTC(2026, 10, 25, 14, 0, 0, 0),
    queued: Date.UTC(2026, 10, 25, 14, 0, 0, 12),
    processing: Date.UTC(2026, 10, 25, 14, 0, 0, 20),
    rejected: Date.UTC(2026, 10, 25, 14, 0, 1, 520),
  },
  notices: {
    rejected: {
      state: 'unsent',
      at: Date.UTC(2026, 10, 25, 14, 0, 2),
      reason: 'not sent: no relay configured',
      to: 'letters@acme.example',
    },
  },
};

describe('status for a person', () => {
  const text = formatStatus(record);

  it('leads with the state and the reason, its code said once', () => {
    expect(text.split('\n').slice(0, 2)).toEqual([
      'intake in0123456789abcdef01234567: rejected',
      '  reason    PdfActiveContent: bill.pdf carries JavaScript (OpenAction); send the letter without scripts',
    ]);
  });

  it('prints the timeline in UTC with the step between states', () => {
    expect(text).toContain(
      [
        'timeline (UTC)',
        '  2026-11-25 14:00:00.000  received',
        '  2026-11-25 14:00:00.012  queued      +12 ms',
        '  2026-11-25 14:00:00.020  processing  +8 ms',
        '  2026-11-25 14:00:01.520  rejected    +1.5 s',
      ].join('\n'),
    );
  });

  it('says what the sender was told', () => {
    expect(text).toContain('notices to the sender\n  rejected    unsent: not sent: no relay configured, to letters@acme.example');
  });

  it('tells a failed intake how to go on', () => {
    const failed = formatStatus({
      ...record,
      state: 'failed',
      reasonCode: undefined,
      errorCode: 'InvalidCredentials',
      reason: 'the API refused the login',
    });
    expect(failed).toContain('  error     InvalidCredentials: the API refused the login\n');
    expect(failed).toContain('  next      fix the cause, then: letter-intake replay in0123456789abcdef01234567\n');
  });
});

describe('status of a replayed intake', () => {
  it('lists the runs that failed before, newest first', () => {
    const text = formatStatus({
      ...record,
      state: 'queued',
      earlierRuns: [
        { timeline: { queued: Date.UTC(2026, 10, 25, 9), failed: Date.UTC(2026, 10, 25, 10) }, errorCode: 'HTTP503', attempts: 12 },
        {
          timeline: { queued: Date.UTC(2026, 10, 25, 11), failed: Date.UTC(2026, 10, 25, 11, 0, 1) },
          errorCode: 'InvalidCredentials',
          reason: 'login refused',
          attempts: 1,
        },
      ],
    });
    expect(text).toContain(
      [
        'earlier runs (each ended failed, then replayed; newest first)',
        '  2026-11-25 11:00:00.000 → 2026-11-25 11:00:01.000, 1 attempt: InvalidCredentials: login refused',
        '  2026-11-25 09:00:00.000 → 2026-11-25 10:00:00.000, 12 attempts: HTTP503',
      ].join('\n'),
    );
  });
});

describe('a reason code and its sentence', () => {
  it.each([
    ['NoPdfAttachment', 'the message carries no PDF attachment', 'NoPdfAttachment: the message carries no PDF attachment'],
    ['PdfActiveContent', 'PdfActiveContent: JavaScript found', 'PdfActiveContent: JavaScript found'],
    ['JobLost', undefined, 'JobLost'],
    [undefined, 'a sentence alone', 'a sentence alone'],
  ])('%s + %s → %s', (code, reason, line) => {
    expect(codeAndReason(code, reason)).toBe(line);
  });
});

describe('send --port', () => {
  it.each([
    [undefined, undefined],
    ['2525', 2525],
    ['65535', 65_535],
    ['abc', 'invalid'],
    ['0', 'invalid'],
    ['65536', 'invalid'],
    ['25.5', 'invalid'],
    ['', 'invalid'],
  ])('%s → %s', (text, port) => {
    expect(portOption(text)).toBe(port);
  });
});

describe("the doctor's target", () => {
  it('is the environment as given when REDIS_URL is set', () => {
    const env = { REDIS_URL: 'redis://redis.internal:6379' };
    expect(doctorTarget(env, 'redis://127.0.0.1:40000').env).toEqual(env);
  });

  it('is the environment as given when Sentinels are configured, not a running `npm start`', () => {
    const env = { REDIS_SENTINELS: '10.0.0.1:26379', REDIS_SENTINEL_MASTER: 'intake' };
    const target = doctorTarget(env, 'redis://127.0.0.1:40000');
    expect(target.env).toEqual(env);
    expect(target.heading).toContain('(REDIS_SENTINELS set)');
  });

  it('is the running `npm start` without REDIS_URL: its Redis, its sandbox and the demo setup', () => {
    const target = doctorTarget({ SANDBOX_PORT: '8091' }, 'redis://127.0.0.1:40000');
    expect(target.env).toMatchObject({
      REDIS_URL: 'redis://127.0.0.1:40000',
      SENDER_API_URL: 'http://127.0.0.1:8091',
      INBOUND_ADDRESSES: 'letters@intake.example',
    });
    expect(target.env.SENDERS_FILE).toMatch(/fixtures\/senders\.json$/);
    expect(target.heading).toContain('Checking the running `npm start`');
  });

  it('keeps a configured Sender API and sender directory', () => {
    const env = { SENDER_API_URL: 'https://api.example', SENDERS_FILE: '/etc/senders.json', INBOUND_ADDRESSES: 'letters@intake.example' };
    expect(doctorTarget(env, 'redis://127.0.0.1:40000').env).toMatchObject({ ...env, REDIS_URL: 'redis://127.0.0.1:40000' });
  });

  it('says when there is nothing running to check, and fails the run (exit 1)', () => {
    const target = doctorTarget({}, undefined);
    expect(target.env).toEqual({});
    expect(target.heading).toContain('no running `npm start` found');
    const judged = judgedFor(target, [warn('TLS', 'STARTTLS', 'not offered')]);
    expect(judged.at(-1)).toMatchObject({ status: 'fail', name: 'a gateway to check' });
    expect(exitCodeOf(judged)).toBe(1);
  });

  it('exits 0 on the healthy demo: its missing MX warns, with the reason; a real failure still fails', () => {
    const demo = doctorTarget({}, 'redis://127.0.0.1:40000');
    const mx = fail('DNS', 'MX of intake.example', 'no MX record: senders cannot reach the gateway');
    const judged = judgedFor(demo, [ok('Redis', 'ping', 'answers'), mx]);
    expect(judged[1]).toMatchObject({ status: 'warn', detail: expect.stringContaining('expected in the demo') });
    expect(exitCodeOf(judged)).toBe(0);
    expect(exitCodeOf(judgedFor(demo, [mx, fail('Redis', 'ping', 'no answer')]))).toBe(1);
    const configured = doctorTarget({ REDIS_URL: 'redis://redis.internal:6379' }, undefined);
    expect(exitCodeOf(judgedFor(configured, [mx]))).toBe(1);
  });
});
