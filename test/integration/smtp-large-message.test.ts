// Messages larger than one write batch go to the raw store while they arrive (the listener does
// not hold them whole): the stored raw message is still byte-exact, and nothing is left behind.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { blobsIn, storedMessage } from '../helpers/raw-stores.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { dotStuff, SmtpClient, sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});
afterAll(async () => {
  await gateway.close();
});

const bigPdf = () => Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3 * 1024 * 1024)]);
/** Writes under way or abandoned in the raw store (a directory keeps them as files). */
const incompleteWrites = async () => (await blobsIn(gateway.rawStore)).incomplete;

describe('a message larger than a write batch', () => {
  it('is stored byte for byte behind the Authentication-Results, with no incomplete write left over', async () => {
    const raw = await signedLetter({ title: 'A large letter', pdf: bigPdf() });
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw,
      helo: FIXTURE_SESSION.helo,
    });
    const stored = await storedMessage(gateway.store, gateway.rawStore, intakeIdOf(replies.data?.text ?? ''));
    const wire = dotStuff(raw); // what went over SMTP, line ends normalized; DATA un-stuffs the dots
    const body = Buffer.from(wire.toString('latin1').replace(/^\.\./gm, '.'), 'latin1');
    expect(stored?.subarray(stored.length - body.length).equals(body)).toBe(true);
    expect(stored?.subarray(0, stored.length - body.length).toString('latin1')).toMatch(
      /^Received-SPF: pass[\s\S]*Authentication-Results: /,
    );
    expect((await gateway.store.get(intakeIdOf(replies.data?.text ?? '')))?.sizeBytes).toBe(body.length);
    expect(await incompleteWrites()).toEqual([]);
  });

  it('leaves nothing behind when it is refused', async () => {
    const raw = await signedLetter({ title: 'A large forged letter', pdf: bigPdf() });
    const forged = Buffer.concat([raw, Buffer.from('appended after signing\r\n')]);
    const before = (await blobsIn(gateway.rawStore)).committed.length;
    const replies = await sendOnce(gateway.port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: forged,
      helo: FIXTURE_SESSION.helo,
    });
    expect(replies.data?.text).toMatch(/^550 5\.7\.1 /);
    expect(await incompleteWrites()).toEqual([]);
    expect((await blobsIn(gateway.rawStore)).committed.length).toBe(before);
  });

  it('leaves no incomplete write behind when the client goes away in the middle of DATA', async () => {
    const raw = dotStuff(await signedLetter({ title: 'A large letter cut off', pdf: bigPdf() }));
    const { client } = await SmtpClient.open(gateway.port);
    await client.command('EHLO mta.acme.example');
    await client.command('MAIL FROM:<bounce@acme.example>');
    await client.command(`RCPT TO:<${PROCESSING_ADDRESS}>`);
    await client.command('DATA');
    client.write(raw.subarray(0, 2 * 1024 * 1024));
    for (let i = 0; i < 100 && (await incompleteWrites()).length === 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect((await incompleteWrites()).length).toBe(1); // it was being written ...
    client.close();
    for (let i = 0; i < 100 && (await incompleteWrites()).length > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await incompleteWrites()).toEqual([]); // ... and is gone with the client
  });

  it('knows a message without a Message-ID again by its header block, however TCP split it', async () => {
    const raw = await signedLetter({ title: 'A large letter without Message-ID', pdf: bigPdf(), messageId: null });
    const send = () => sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    const first = intakeIdOf((await send()).data?.text ?? '');
    expect(intakeIdOf((await send()).data?.text ?? '')).toBe(first);
  });

  it('keeps the first intake when the same large message arrives again', async () => {
    const raw = await signedLetter({ title: 'A large letter sent twice', pdf: bigPdf() });
    const send = () => sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
    const first = intakeIdOf((await send()).data?.text ?? '');
    const second = intakeIdOf((await send()).data?.text ?? '');
    expect(second).toBe(first);
    expect(await incompleteWrites()).toEqual([]);
  });
});
