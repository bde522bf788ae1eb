import { describe, expect, it } from 'vitest';
import { judgeRecipient } from '../../src/smtp/self-test-recipient.js';

const addresses = {
  processing: ['letters@intake.example'],
  selfTest: 'selftest@intake.example',
  isSenderAddress: (address: string) => address === 'acme-letters@intake.example',
};

describe('RCPT TO: processing addresses, senders own addresses and the self-test address', () => {
  it.each([
    ['the shared processing address', 'letters@intake.example'],
    ["a sender's own processing address", 'acme-letters@intake.example'],
    ['the self-test address', 'selftest@intake.example'],
  ])('takes %s alone', (_what, address) => {
    expect(judgeRecipient(address, [], addresses)).toBeUndefined();
  });

  it('refuses a mailbox that is none of them', () => {
    expect(judgeRecipient('someone@intake.example', [], addresses)?.code).toBe('RecipientNotAccepted');
  });

  it("refuses the self-test address after a sender's own address, and the other way round (452 4.5.3)", () => {
    expect(judgeRecipient('selftest@intake.example', ['acme-letters@intake.example'], addresses)?.code).toBe('SelfTestWithLetter');
    expect(judgeRecipient('acme-letters@intake.example', ['selftest@intake.example'], addresses)?.code).toBe('SelfTestWithLetter');
  });

  it("takes a sender's own address beside the shared one (both letters)", () => {
    expect(judgeRecipient('acme-letters@intake.example', ['letters@intake.example'], addresses)).toBeUndefined();
  });
});
