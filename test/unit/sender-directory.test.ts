import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRegisteredAddresses, loadSenderDirectory, parseSenderDirectory, SenderDirectoryError } from '../../src/senders/directory.js';

const acme = {
  senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
  companyNameEn: 'Acme',
  addresses: ['Letters@Acme.example'],
  apiClientId: 'acme',
};

describe('the sender directory', () => {
  it('finds a sender by any case of its address, with the secret from the named variable', () => {
    const directory = parseSenderDirectory({ senders: [{ ...acme, apiClientSecretEnv: 'ACME_SECRET' }] }, { ACME_SECRET: 's3' });
    expect(directory.byAddress('LETTERS@acme.EXAMPLE')?.apiClientSecret).toBe('s3');
    expect(directory.byAddress('other@acme.example')).toBeUndefined();
  });

  it.each([
    ['both secret forms', { ...acme, apiClientSecret: 'a', apiClientSecretEnv: 'B' }, 'exactly one'],
    ['no secret', acme, 'exactly one'],
    ['a bad address', { ...acme, apiClientSecret: 'a', addresses: ['nope'] }, 'addresses'],
    ['a bad sender id', { ...acme, apiClientSecret: 'a', senderId: '42' }, 'senderId'],
    ['a notice kind that cannot be asked for', { ...acme, apiClientSecret: 'a', notify: ['rejected'] }, 'notify'],
  ])('refuses %s, naming the problem', (_what, sender, fragment) => {
    expect(() => parseSenderDirectory({ senders: [sender] }, {})).toThrow(SenderDirectoryError);
    expect(() => parseSenderDirectory({ senders: [sender] }, {})).toThrow(fragment);
  });

  it('sends confirmations only to senders who ask for them', () => {
    expect(parseSenderDirectory({ senders: [{ ...acme, apiClientSecret: 'a' }] }, {}).senders[0]?.notify).toEqual([]);
    expect(parseSenderDirectory({ senders: [{ ...acme, apiClientSecret: 'a', notify: ['submitted'] }] }, {}).senders[0]?.notify).toEqual([
      'submitted',
    ]);
  });

  it('allows PDF form fields only for a sender whose entry says allowPdfForms: true', () => {
    const directory = parseSenderDirectory(
      {
        senders: [
          { ...acme, apiClientSecret: 'a', allowPdfForms: true },
          {
            ...acme,
            apiClientSecret: 'b',
            senderId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
            apiClientId: 'beta',
            addresses: ['letters@beta.example'],
          },
        ],
      },
      {},
    );
    expect(directory.byAddress('letters@acme.example')?.allowPdfForms).toBe(true);
    expect(directory.byAddress('letters@beta.example')?.allowPdfForms).toBe(false);
    expect(() => parseSenderDirectory({ senders: [{ ...acme, apiClientSecret: 'a', allowPdfForms: 'yes' }] }, {})).toThrow('allowPdfForms');
  });

  it('refuses a secret variable that is not set', () => {
    expect(() => parseSenderDirectory({ senders: [{ ...acme, apiClientSecretEnv: 'MISSING' }] }, {})).toThrow('MISSING');
  });

  it('refuses an address registered twice', () => {
    const other = { ...acme, senderId: '3f9b2a4d-7c1e-4b8a-9d2f-6e5c4b3a2918', apiClientId: 'other', apiClientSecret: 'x' };
    expect(() => parseSenderDirectory({ senders: [{ ...acme, apiClientSecret: 'a' }, other] }, {})).toThrow('appears twice');
  });
});

describe('the registered addresses, as the listener reads them', () => {
  const write = (json: unknown): string => {
    const file = join(mkdtempSync(join(tmpdir(), 'senders-')), 'senders.json');
    writeFileSync(file, JSON.stringify(json));
    return file;
  };

  it('are read without the API secrets, lower-cased', () => {
    const file = write({ senders: [{ ...acme, apiClientSecretEnv: 'NOT_SET_FOR_THE_LISTENER' }] });
    expect(() => loadSenderDirectory(file, {})).toThrow('NOT_SET_FOR_THE_LISTENER');
    expect([...loadRegisteredAddresses(file)]).toEqual(['letters@acme.example']);
  });

  it('refuse a malformed directory as the worker does, naming the file', () => {
    const file = write({ senders: [{ ...acme, apiClientSecret: 'a', addresses: ['nope'] }] });
    expect(() => loadRegisteredAddresses(file)).toThrow(SenderDirectoryError);
    expect(() => loadRegisteredAddresses(file)).toThrow(`SENDERS_FILE ${file}`);
  });
});
