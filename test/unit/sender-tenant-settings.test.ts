import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import { reloadableListenerDirectory } from '../../src/senders/live-directory.js';

const acme = {
  senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
  companyNameEn: 'Acme',
  addresses: ['letters@acme.example'],
  apiClientId: 'acme',
  apiClientSecret: 'a',
};
const beta = {
  senderId: '1b4e28ba-2fa1-41d2-883f-0016d3cca427',
  companyNameEn: 'Beta',
  addresses: ['letters@beta.example'],
  apiClientId: 'beta',
  apiClientSecret: 'b',
};
const SHARED = { sharedAddresses: ['letters@intake.example'], reservedAddresses: ['self-test@intake.example'] };

function parse(senders: unknown[]): ReturnType<typeof parseSenderDirectory> {
  return parseSenderDirectory({ senders }, {}, 'SENDERS_FILE', SHARED);
}

describe("a sender's own settings", () => {
  it('are absent unless given: the sender is served as before', () => {
    const [sender] = parse([acme]).senders;
    expect(sender?.dkimSelectors).toBeUndefined();
    expect(sender?.processingAddresses).toEqual([]);
    expect(sender?.sharedAddress).toBe(true);
    expect(sender?.limits).toBeUndefined();
  });

  it('keep selectors and processing addresses lower-cased, and find a sender by its own address in any case', () => {
    const directory = parse([{ ...acme, dkimSelectors: ['HK1'], processingAddresses: ['Acme-Letters@Intake.example'] }]);
    expect(directory.senders[0]?.dkimSelectors).toEqual(['hk1']);
    expect(directory.byProcessingAddress('ACME-LETTERS@intake.example')?.senderId).toBe(acme.senderId);
    expect(directory.byProcessingAddress('letters@intake.example')).toBeUndefined();
  });

  it.each([
    ['an empty selector list', [{ ...acme, dkimSelectors: [] }], 'dkimSelectors'],
    ['a selector that is no selector', [{ ...acme, dkimSelectors: ['a b'] }], 'dkimSelectors'],
    ['an empty address list', [{ ...acme, processingAddresses: [] }], 'processingAddresses'],
    [
      'an address listed twice, in another case',
      [
        { ...acme, processingAddresses: ['a@intake.example'] },
        { ...beta, processingAddresses: ['A@intake.example'] },
      ],
      'a@intake.example appears twice',
    ],
    ['a shared address', [{ ...acme, processingAddresses: ['Letters@intake.example'] }], 'is a shared address'],
    ['the self-test address', [{ ...acme, processingAddresses: ['self-test@intake.example'] }], 'is reserved'],
    ['sharedAddress false without an address of its own', [{ ...acme, sharedAddress: false }], 'needs processingAddresses'],
    ['limits naming none', [{ ...acme, limits: {} }], 'at least one limit'],
    ['a limit that is not a positive whole number', [{ ...acme, limits: { messagesPerHour: 0 } }], 'messagesPerHour'],
    ['a limit of another name', [{ ...acme, limits: { lettersPerDay: 5 } }], 'limits'],
  ])('refuses %s, naming it', (_what, senders, fragment) => {
    expect(() => parse(senders)).toThrow(fragment);
  });
});

describe("the listener's directory, reloaded", () => {
  it("takes a sender's new settings, and keeps the loaded ones when the file breaks a rule", () => {
    const file = join(mkdtempSync(join(tmpdir(), 'senders-reload-')), 'senders.json');
    const write = (sender: object): void => writeFileSync(file, JSON.stringify({ senders: [sender] }));
    write({ ...acme, dkimSelectors: ['hk1'] });
    const loaded = reloadableListenerDirectory(file, Date.now, SHARED);
    expect(loaded.current().byAddress('letters@acme.example')?.dkimSelectors).toEqual(['hk1']);
    write({ ...acme, dkimSelectors: ['hk2'], limits: { messagesPerHour: 10 } });
    expect(loaded.reload().kind).toBe('reloaded');
    expect(loaded.current().senders[0]).toMatchObject({ dkimSelectors: ['hk2'], limits: { messagesPerHour: 10 } });
    write({ ...acme, processingAddresses: ['letters@intake.example'] });
    expect(loaded.reload()).toMatchObject({ kind: 'failed', error: expect.stringContaining('is a shared address') });
    expect(loaded.current().senders[0]?.dkimSelectors).toEqual(['hk2']);
  });
});

describe("a sender's own Sender API and dry run", () => {
  it('takes senderApiUrl under the rule of SENDER_API_URL: https, or http on loopback', () => {
    const directory = parse([
      { ...acme, senderApiUrl: 'https://staging.api.example/' },
      { ...beta, senderApiUrl: 'http://127.0.0.1:8090' },
    ]);
    expect(directory.senders.map((s) => s.senderApiUrl)).toEqual(['https://staging.api.example/', 'http://127.0.0.1:8090']);
  });

  it.each([
    ['http://staging.api.example', /senderApiUrl must use https:\/\/ \(plain http:\/\/ is allowed only for loopback/],
    ['https://user:pw@api.example', /senderApiUrl must not contain a user name or password/],
    ['ftp://api.example', /senderApiUrl must be an https:\/\/ address; got protocol ftp:/],
    ['not a url', /senderApiUrl is not a valid URL/],
  ])('refuses senderApiUrl %s, naming the rule', (url, message) => {
    expect(() => parse([{ ...acme, senderApiUrl: url }])).toThrow(message);
  });

  it('keeps dryRun, false unless given', () => {
    const directory = parse([{ ...acme, dryRun: true }, beta]);
    expect(directory.senders.map((s) => s.dryRun)).toEqual([true, false]);
    expect(() => parse([{ ...acme, dryRun: 'yes' }])).toThrow(/dryRun/);
  });
});
