import { describe, expect, it } from 'vitest';
import type { OpenedPdf, PdfFacts } from '../../src/pdf/facts.js';
import { judgePdf } from '../../src/pdf/judge.js';

const clean: OpenedPdf = {
  kind: 'opened',
  pages: 2,
  version: '1.7',
  producer: 'Skia/PDF m156',
  encrypted: false,
  javascript: [],
  launch: [],
  embeddedFiles: [],
  xfa: false,
  formFields: false,
  structureWalked: true,
};
const strict = { allowForms: false };

describe('the PDF rules', () => {
  it.each<[string, PdfFacts, string, RegExp]>([
    ['a password is needed', { kind: 'password' }, 'PdfPasswordProtected', /"a\.pdf" needs a password to open/],
    [
      'the file does not parse',
      { kind: 'damaged', detail: 'Invalid PDF structure.' },
      'PdfDamaged',
      /"a\.pdf" cannot be read as a PDF \(Invalid PDF structure\.\)/,
    ],
    ['the time limit was hit', { kind: 'too-complex', limit: 'time' }, 'PdfDamaged', /too complex to check: .*time limit/],
    ['the memory limit was hit', { kind: 'too-complex', limit: 'memory' }, 'PdfDamaged', /too complex to check: .*memory limit/],
    [
      'JavaScript runs on open',
      { ...clean, javascript: ['document open action'] },
      'PdfActiveContent',
      /JavaScript \(document open action\)/,
    ],
    ['a Launch action', { ...clean, launch: ['page 1, an annotation'] }, 'PdfActiveContent', /a Launch action \(page 1, an annotation\)/],
    [
      'an embedded file',
      { ...clean, embeddedFiles: ['document embedded files'] },
      'PdfActiveContent',
      /an embedded file \(document embedded files\)/,
    ],
    ['an XFA form', { ...clean, xfa: true }, 'PdfActiveContent', /an XFA form/],
    ['form fields', { ...clean, formFields: true }, 'PdfActiveContent', /interactive form fields/],
  ])('rejects a PDF when %s', (_when, facts, reasonCode, sentence) => {
    expect(judgePdf(facts, strict, '"a.pdf"')).toEqual({ ok: false, reasonCode, reason: expect.stringMatching(sentence) });
  });

  it('accepts an opened PDF without active content, encrypted (permissions only) or not', () => {
    expect(judgePdf(clean, strict, '"a.pdf"')).toEqual({ ok: true });
    expect(judgePdf({ ...clean, encrypted: true }, strict, '"a.pdf"')).toEqual({ ok: true });
  });

  it('accepts form fields for a sender allowed forms, but never JavaScript with them', () => {
    expect(judgePdf({ ...clean, formFields: true }, { allowForms: true }, '"a.pdf"')).toEqual({ ok: true });
    expect(judgePdf({ ...clean, formFields: true, javascript: ['page 1, an annotation'] }, { allowForms: true }, '"a.pdf"')).toMatchObject({
      ok: false,
      reasonCode: 'PdfActiveContent',
      reason: expect.not.stringMatching(/form fields/),
    });
  });

  it('names everything it found, the first four and how many more', () => {
    const busy: OpenedPdf = {
      ...clean,
      javascript: ['document open action', 'page 1 actions'],
      launch: ['bookmark'],
      embeddedFiles: ['page 2, a file attachment annotation'],
      xfa: true,
      formFields: true,
    };
    const verdict = judgePdf(busy, strict, '"a.pdf"');
    expect(verdict.ok ? '' : verdict.reason).toBe(
      'The PDF "a.pdf" carries active content, which letters may not: JavaScript (document open action), JavaScript (page 1 actions), a Launch action (bookmark), an embedded file (page 2, a file attachment annotation), 2 more.',
    );
  });
});
