// Senders' own processing addresses: taken at RCPT like the shared one, but only for mail from
// the sender they belong to; a sender with sharedAddress false hears its own address instead of
// a letter made from mail to the shared one. No reply names a sender.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendOnce } from '../helpers/smtp-client.js';
import { tenantSendersFile } from '../helpers/tenant-senders.js';

const ACME_OWN = 'acme-letters@intake.example';
const GLOBEX_OWN = 'globex-letters@intake.example';
let gateway: TestGateway;

beforeAll(async () => {
  const file = tenantSendersFile({
    acme: { processingAddresses: ['Acme-Letters@intake.example'] },
    globex: { processingAddresses: [GLOBEX_OWN], sharedAddress: false },
  });
  gateway = await startTestGateway({ env: { SENDERS_FILE: file } });
}, 30_000);

afterAll(async () => {
  await gateway?.close();
});

async function send(file: string, from: string, to: string): Promise<{ rcpt: string; data: string }> {
  const replies = await sendOnce(gateway.port, { from, to: [to], raw: fixture(file) });
  return { rcpt: replies.rcpt?.text ?? '', data: replies.data?.text ?? '' };
}

function namesNoSender(reply: string): void {
  for (const name of ['acme', 'globex', 'Acme', 'Globex']) expect(reply.replace(/<[^>]*>/g, '')).not.toContain(name);
}

describe("a sender's own processing address", () => {
  it('takes mail from its sender, in any case', async () => {
    const { rcpt, data } = await send('pdf-attachment.eml', 'letters@acme.example', 'ACME-letters@intake.example');
    expect(rcpt).toMatch(/^250 /);
    expect(data).toMatch(/^250 /);
  });

  it('refuses mail from another sender after authentication, naming neither sender', async () => {
    const { rcpt, data } = await send('second-sender-globex.eml', 'letters@globex.example', ACME_OWN);
    expect(rcpt).toMatch(/^250 /);
    expect(data).toMatch(/^550 5\.7\.1 <acme-letters@intake\.example> takes letters only from the sender it belongs to/);
    namesNoSender(data);
  });

  it('refuses mail from no registered sender the same way', async () => {
    const { data } = await send('unregistered-sender.eml', 'letters@stranger.example', ACME_OWN);
    expect(data).toMatch(/^550 5\.7\.1 <acme-letters@intake\.example> takes letters only/);
  });

  it('leaves any other address unknown at RCPT', async () => {
    const { rcpt } = await send('pdf-attachment.eml', 'letters@acme.example', 'someone-else@intake.example');
    expect(rcpt).toMatch(/^550 5\.1\.1 /);
  });
});

describe('sharedAddress false', () => {
  it("refuses the sender's mail to the shared address, naming its own", async () => {
    const { data } = await send('second-sender-globex.eml', 'letters@globex.example', PROCESSING_ADDRESS);
    expect(data).toBe(`550 5.7.1 <${PROCESSING_ADDRESS}> does not take your letters; send them to <${GLOBEX_OWN}>`);
  });

  it('takes its mail to its own address', async () => {
    const { data } = await send('second-sender-globex.eml', 'letters@globex.example', GLOBEX_OWN);
    expect(data).toMatch(/^250 /);
  });

  it('leaves the shared address open to the other senders', async () => {
    const { data } = await send('pdf-attachment.eml', 'letters@acme.example', PROCESSING_ADDRESS);
    expect(data).toMatch(/^250 /);
  });
});
