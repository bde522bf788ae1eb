import { describe, expect, it } from 'vitest';
import { intakeIdFor } from '../../src/intake/intake-id.js';
import { readHeaderFields } from '../../src/smtp/header-fields.js';

describe('header fields for the intake record', () => {
  it('reads a folded Message-ID, an RFC 2047 subject and the claimed From', () => {
    const raw = Buffer.from(
      'From: a@b.example\r\nMessage-ID:\r\n <abc@b.example>\r\nSubject: =?UTF-8?Q?Preis=C3=A4nderung?= 2027\r\n\r\nSubject: not this\r\n',
    );
    expect(readHeaderFields(raw)).toEqual({
      messageId: '<abc@b.example>',
      subject: 'Preisänderung 2027',
      claimedFrom: 'a@b.example',
    });
  });

  it('reads raw UTF-8 in a subject and stops at the end of the header block', () => {
    const raw = Buffer.from('Subject: Grüße\n\nMessage-ID: <body@x>\n', 'utf8');
    expect(readHeaderFields(raw)).toEqual({ messageId: '', subject: 'Grüße', claimedFrom: '' });
  });
});

describe('the intake id', () => {
  const base = { from: 'letters@acme.example', messageId: '<1@acme.example>', contentSha256: 'aa' };

  it('is the same for the same From, Message-ID and content, whatever the case of From', () => {
    expect(intakeIdFor({ ...base, from: 'LETTERS@acme.example' })).toBe(intakeIdFor(base));
  });

  it('differs for another From, another Message-ID or other content', () => {
    expect(intakeIdFor({ ...base, from: 'x@acme.example' })).not.toBe(intakeIdFor(base));
    expect(intakeIdFor({ ...base, messageId: '<2@acme.example>' })).not.toBe(intakeIdFor(base));
    expect(intakeIdFor({ ...base, contentSha256: 'bb' })).not.toBe(intakeIdFor(base));
  });

  it('is known by its content alone without a Message-ID, and is a safe BullMQ job id', () => {
    const a = intakeIdFor({ ...base, messageId: '' });
    expect(a).toBe(intakeIdFor({ ...base, messageId: '', from: 'other@acme.example' }));
    expect(a).not.toBe(intakeIdFor({ ...base, messageId: '', contentSha256: 'bb' }));
    expect(a).toMatch(/^in[0-9a-f]{24}$/);
  });
});
