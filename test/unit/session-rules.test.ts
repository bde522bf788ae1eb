// The session's use of the message rules: what the walk read decides, a walk that fails or
// hangs is our fault (451 4.3.0, try later), never a permanent refusal.
import { describe, expect, it, vi } from 'vitest';
import { IntakeError } from '../../src/errors.js';
import type { WalkResult } from '../../src/mime/mime-walk.js';
import { replyFor } from '../../src/smtp/reply.js';
import { brokenRule, refusalFor, settledWalk } from '../../src/smtp/session-rules.js';

const rules = { isRegistered: (a: string) => a === 'letters@acme.example', maxPdfBytes: 10 * 1024 * 1024 };
const pdf = { contentType: 'application/pdf', fileName: 'bill.pdf', firstBytes: Buffer.from('%PDF-1.7'), decodedBytes: 1000 };
const walked = (over: Partial<Extract<WalkResult, { kind: 'walked' }>> = {}): WalkResult => ({
  kind: 'walked',
  subject: 'Bill',
  parts: [pdf],
  ...over,
});

describe('the rule a message breaks in the session', () => {
  it('is none for a registered sender with a PDF and a subject', () => {
    expect(brokenRule(walked(), 'letters@acme.example', rules)).toBeUndefined();
  });

  it('is UnparseableMessage when the walk could not read the structure', () => {
    expect(brokenRule({ kind: 'unparseable', why: 'Max allowed child nodes exceeded' }, 'letters@acme.example', rules)).toBe(
      'UnparseableMessage',
    );
  });

  it('judges the authenticated From, not anything the walk read', () => {
    expect(brokenRule(walked(), 'letters@stranger.example', rules)).toBe('SenderNotRegistered');
  });
});

describe('the reply for a broken rule', () => {
  it.each([
    [
      'SenderNotRegistered',
      550,
      '5.7.1 SenderNotRegistered: the From address is not a registered address of any sender; send from the address registered for your organization',
    ],
    ['NoPdfAttachment', 550, '5.6.0 NoPdfAttachment: the message carries no PDF attachment; attach the letter as a PDF (at most 10 MiB)'],
    [
      'NotAPdf',
      550,
      '5.6.0 NotAPdf: an attachment named or typed as PDF is not a PDF (it does not start with %PDF-); attach the letter itself as a PDF file, not another format renamed',
    ],
    ['PdfTooLarge', 552, '5.3.4 PdfTooLarge: a PDF attachment is larger than 10 MiB; send a smaller PDF'],
    ['MissingSubject', 550, '5.6.0 MissingSubject: the subject is empty; give the message a subject: it becomes the title of the letter'],
    [
      'UnparseableMessage',
      550,
      '5.6.0 UnparseableMessage: the MIME structure of the message cannot be parsed; send a well-formed MIME message (at most 1,000 parts, header blocks under 1 MiB)',
    ],
  ] as const)('%s → %i %s', (rule, code, text) => {
    const reply = replyFor(refusalFor(rule, rules), 'session-1');
    expect(reply.responseCode).toBe(code);
    expect(reply.message).toBe(text);
  });
});

describe('waiting for the walk', () => {
  it('hands over what the walk read', async () => {
    await expect(settledWalk(Promise.resolve(walked()))).resolves.toEqual(walked());
  });

  it('turns a walk that failed into 451 4.3.0', async () => {
    const failed = settledWalk(Promise.reject(new TypeError('a bug in the walk')));
    await expect(failed).rejects.toBeInstanceOf(IntakeError);
    const reply = replyFor(await failed.catch((err: unknown) => err), 'session-1');
    expect([reply.responseCode, reply.message]).toEqual([451, '4.3.0 temporarily unable to store the message (ref session-1)']);
  });

  it('turns a walk that hangs into 451 4.3.0 once the bound passed, not before', async () => {
    vi.useFakeTimers();
    try {
      let outcome = 'pending';
      const hung = settledWalk(new Promise<WalkResult>(() => {}), 10_000);
      hung.catch((err: unknown) => {
        outcome = err instanceof IntakeError ? err.code : 'other';
      });
      await vi.advanceTimersByTimeAsync(9_999);
      expect(outcome).toBe('pending');
      await vi.advanceTimersByTimeAsync(1);
      expect(outcome).toBe('Unexpected');
    } finally {
      vi.useRealTimers();
    }
  });
});
