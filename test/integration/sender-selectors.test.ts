// A sender that lists its DKIM selectors: only a passing, aligned signature with one of them
// makes a letter; a message signed only with another selector is refused 550 5.7.1 naming it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { tenantSendersFile } from '../helpers/tenant-senders.js';

let gateway: TestGateway;

beforeAll(async () => {
  // Listed in another case than the signature's s= tag: selectors compare case-insensitively.
  const file = tenantSendersFile({ acme: { dkimSelectors: ['RSA2048'] } });
  gateway = await startTestGateway({ env: { SENDERS_FILE: file } });
}, 30_000);

afterAll(async () => {
  await gateway?.close();
});

async function send(file: string, from = 'letters@acme.example'): Promise<string> {
  const replies = await sendOnce(gateway.port, { from, to: [PROCESSING_ADDRESS], raw: fixture(file) });
  return replies.data?.text ?? '';
}

describe('a sender with dkimSelectors', () => {
  it('refuses a message signed only with another selector, naming it and the listed ones', async () => {
    const reply = await send('ed25519-signed.eml');
    expect(reply).toMatch(/^550 5\.7\.1 /);
    expect(reply).toContain('s=ed25519');
    expect(reply).toContain('listed: rsa2048');
  });

  it('accepts a message signed with a listed selector', async () => {
    expect(await send('pdf-attachment.eml')).toMatch(/^250 /);
  });

  it('leaves a sender without dkimSelectors as it was: any aligned selector counts', async () => {
    expect(await send('second-sender-globex.eml', 'letters@globex.example')).toMatch(/^250 /);
  });
});
