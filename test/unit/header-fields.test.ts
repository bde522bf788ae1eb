import { describe, expect, it } from 'vitest';
import { identityFields } from '../../src/intake/identity-fields.js';
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

describe('the identity header fields', () => {
  it('are the relaxed values of every instance of the listed fields, in the fixed order, never trace or authentication fields', () => {
    const block = Buffer.from(
      [
        'Received: from relay.example by mx.example; Mon, 2 Nov 2026 08:00:00 +0000',
        'DKIM-Signature: v=1; a=rsa-sha256; d=acme.example; s=rsa2048; bh=x; b=y',
        'ARC-Seal: i=1; a=rsa-sha256; cv=none; d=relay.example; s=a; b=z',
        'Authentication-Results: mx.example; dkim=pass',
        'Received-SPF: pass',
        'Return-Path: <bounce@acme.example>',
        'Subject:  Your\t bill ',
        '\t for  November ',
        'To: a@intake.example',
        'FROM : Acme <letters@acme.example>',
        'To: b@intake.example',
        'X-Mailer: app 1.0',
        'Message-ID: <1@acme.example>',
      ].join('\r\n'),
      'latin1',
    );
    expect(identityFields(block)).toEqual([
      ['from', 'Acme <letters@acme.example>'],
      ['to', 'a@intake.example'],
      ['to', 'b@intake.example'],
      ['subject', 'Your bill for November'],
      ['message-id', '<1@acme.example>'],
    ]);
  });
});

describe('the intake id', () => {
  it('is "in" and the first 24 hex digits of the content digest: a safe BullMQ job id', () => {
    expect(intakeIdFor({ scheme: 2, sha256: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' })).toBe(
      'in0123456789abcdef01234567',
    );
  });
});
