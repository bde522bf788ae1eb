import { describe, expect, it } from 'vitest';
import { Base64Data } from '../../src/sender-api/index.js';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import { decide, titleFrom } from '../../src/worker/decide.js';
import type { ParsedMessage } from '../../src/worker/parse-message.js';

const directory = parseSenderDirectory(
  {
    senders: [
      {
        senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
        companyNameEn: 'Acme',
        addresses: ['Letters@Acme.example'],
        apiClientId: 'acme',
        apiClientSecret: 's',
      },
    ],
  },
  {},
);
const pdf = Buffer.from('%PDF-1.4 tiny');
const message = (over: Partial<ParsedMessage> = {}): ParsedMessage => ({
  fromAddresses: ['letters@acme.example'],
  subject: '  Your   bill\tfor October ',
  text: 'Dear customer,\nyour bill.',
  attachments: [{ fileName: 'bill.pdf', contentType: 'application/pdf', content: pdf }],
  ...over,
});
const options = { directory, maxPdfBytes: 1000 };

describe('the worker decision', () => {
  it('maps a good message to a letter: collapsed title, text description, All, base64 parts', () => {
    const decision = decide(message(), options);
    expect(decision.kind).toBe('letter');
    if (decision.kind !== 'letter') return;
    expect(decision.sender.apiClientId).toBe('acme');
    expect(decision.letter).toEqual({
      title: 'Your bill for October',
      description: 'Dear customer,\nyour bill.',
      genderTargeting: 'All',
      parts: [{ fileName: 'bill.pdf', mimeType: 'application/pdf', base64Data: new Base64Data(pdf) }],
    });
  });

  it.each([
    ['an unknown From', { fromAddresses: ['x@evil.example'] }, 'SenderNotRegistered'],
    ['no From', { fromAddresses: [] }, 'SenderNotRegistered'],
    ['two From addresses', { fromAddresses: ['letters@acme.example', 'x@evil.example'] }, 'SenderNotRegistered'],
    ['no PDF', { attachments: [] }, 'NoPdfAttachment'],
    ['a fake PDF', { attachments: [{ fileName: 'a.pdf', contentType: 'application/pdf', content: Buffer.from('nope') }] }, 'NotAPdf'],
    [
      'a big PDF',
      { attachments: [{ fileName: 'a.pdf', contentType: 'application/pdf', content: Buffer.concat([pdf, Buffer.alloc(2000)]) }] },
      'PdfTooLarge',
    ],
    ['an empty subject', { subject: '' }, 'MissingSubject'],
    ['a blank subject', { subject: ' \t ' }, 'MissingSubject'],
  ] as const)('rejects %s', (_what, over, reasonCode) => {
    expect(decide(message(over), options)).toMatchObject({ kind: 'rejected', reasonCode });
  });

  it('matches the registered address case-insensitively', () => {
    expect(decide(message({ fromAddresses: ['LETTERS@ACME.EXAMPLE'] }), options).kind).toBe('letter');
  });

  it('collapses every kind of white space in the title', () => {
    expect(titleFrom('\n a \u00a0 b\r\n c ')).toBe('a b c');
  });
});
