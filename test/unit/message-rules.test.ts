// The message's own rules over facts, as the listener and the worker both apply them.
import { describe, expect, it } from 'vitest';
import { ruleSentence } from '../../src/errors.js';
import { claimsToBePdf, judgeMessage } from '../../src/policy/message-rules.js';
import type { MessageFacts, PartFacts } from '../../src/words/message-facts.js';

const REGISTERED = 'letters@acme.example';
const ctx = { isRegistered: (a: string) => a === REGISTERED, maxPdfBytes: 1000 };
const pdf = (fileName: string, decodedBytes = 500): PartFacts => ({
  contentType: 'application/pdf',
  fileName,
  firstBytes: Buffer.from('%PDF-1.7'),
  decodedBytes,
});
const facts = (over: Partial<MessageFacts> = {}): MessageFacts => ({
  from: REGISTERED,
  subject: 'Your bill',
  parts: [pdf('bill.pdf')],
  ...over,
});

describe('which attachments claim to be PDFs', () => {
  it.each([
    ['application/pdf', 'x.pdf', true],
    ['application/pdf', undefined, true],
    ['application/octet-stream', 'Bill.PDF', true],
    ['application/octet-stream', 'bill.zip', false],
    ['application/octet-stream', undefined, false],
    ['image/png', 'logo.pdf', false],
    ['text/plain', 'notes.txt', false],
  ] as const)('%s named %s → %s', (contentType, fileName, expected) => {
    expect(claimsToBePdf({ contentType, fileName })).toBe(expected);
  });
});

describe('judging a message by its facts', () => {
  it('passes a registered sender with a PDF and a subject, naming the PDF parts', () => {
    const logo: PartFacts = { contentType: 'image/png', fileName: 'logo.png', firstBytes: Buffer.from('\x89PNG'), decodedBytes: 10 };
    expect(judgeMessage(facts({ parts: [logo, pdf('a.pdf'), pdf('b.pdf')] }), ctx)).toEqual({ ok: true, pdfParts: [1, 2] });
  });

  it.each([
    ['an unregistered From', { from: 'letters@stranger.example' }, 'SenderNotRegistered'],
    ['no single From', { from: '' }, 'SenderNotRegistered'],
    ['no attachment at all', { parts: [] }, 'NoPdfAttachment'],
    [
      'only a PNG',
      { parts: [{ contentType: 'image/png', fileName: 'x.png', firstBytes: Buffer.from('\x89PNG'), decodedBytes: 4 }] },
      'NoPdfAttachment',
    ],
    [
      'a ZIP named .pdf',
      { parts: [{ ...pdf('bill.pdf'), contentType: 'application/octet-stream', firstBytes: Buffer.from('PK\x03\x04') }] },
      'NotAPdf',
    ],
    ['an empty PDF part', { parts: [{ ...pdf('bill.pdf'), firstBytes: Buffer.alloc(0), decodedBytes: 0 }] }, 'NotAPdf'],
    ['a PDF one byte over the limit', { parts: [pdf('big.pdf', 1001)] }, 'PdfTooLarge'],
    ['an empty subject', { subject: '' }, 'MissingSubject'],
    ['a subject of white space and control characters', { subject: ' \t\u0000\u001b ' }, 'MissingSubject'],
  ] as const)('refuses %s', (_what, over, reasonCode) => {
    expect(judgeMessage(facts(over), ctx)).toMatchObject({ ok: false, reasonCode });
  });

  it('passes a PDF exactly at the limit', () => {
    expect(judgeMessage(facts({ parts: [pdf('a.pdf', 1000)] }), ctx)).toMatchObject({ ok: true });
  });

  describe('the real API limits an operator stated (API_TITLE_MAX_CHARS, API_MAX_PARTS)', () => {
    const limited = { ...ctx, apiLimits: { titleMaxChars: 10, maxParts: 2 } };

    it('passes a title of exactly the limit in characters, counting a character outside the BMP once', () => {
      expect(judgeMessage(facts({ subject: 'Bill 2026😀' }), limited)).toMatchObject({ ok: true }); // 10 characters, 11 UTF-16 units
    });

    it('refuses a title one character over the limit as TitleTooLong, naming both numbers', () => {
      expect(judgeMessage(facts({ subject: 'Bill  2026 x' }), limited)).toEqual({
        ok: false,
        reasonCode: 'TitleTooLong',
        detail: '11 characters, at most 10',
      });
    });

    it('refuses more PDFs than the limit as TooManyPdfs, and passes exactly the limit', () => {
      expect(judgeMessage(facts({ parts: [pdf('a.pdf'), pdf('b.pdf'), pdf('c.pdf')] }), limited)).toEqual({
        ok: false,
        reasonCode: 'TooManyPdfs',
        detail: '3 PDFs, at most 2',
      });
      expect(judgeMessage(facts({ parts: [pdf('a.pdf'), pdf('b.pdf')] }), limited)).toMatchObject({ ok: true });
    });

    it('sets no such limit unless stated', () => {
      const many = Array.from({ length: 40 }, (_, i) => pdf(`${i}.pdf`));
      expect(judgeMessage(facts({ subject: 'x'.repeat(2000), parts: many }), ctx)).toMatchObject({ ok: true });
    });
  });

  it('answers with the first rule that fails: the sender before the PDF before the subject', () => {
    expect(judgeMessage(facts({ from: 'x@stranger.example', parts: [], subject: '' }), ctx)).toMatchObject({
      reasonCode: 'SenderNotRegistered',
    });
    expect(judgeMessage(facts({ parts: [], subject: '' }), ctx)).toMatchObject({ reasonCode: 'NoPdfAttachment' });
  });
});

describe('the sentence of a rule', () => {
  it('starts with the code, says the rule and what to do, with the limit in words', () => {
    expect(ruleSentence('NoPdfAttachment', { maxPdfBytes: 10 * 1024 * 1024 })).toBe(
      'NoPdfAttachment: the message carries no PDF attachment; attach the letter as a PDF (at most 10 MiB)',
    );
  });

  it('puts the detail after what the rule says', () => {
    expect(ruleSentence('PdfTooLarge', { maxPdfBytes: 1000 }, '"a.pdf" is 1001 bytes')).toBe(
      'PdfTooLarge: a PDF attachment is larger than 1000 bytes ("a.pdf" is 1001 bytes); send a smaller PDF',
    );
  });
});
