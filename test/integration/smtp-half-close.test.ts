// A pipelining client that half-closes: `.` and `QUIT` in one write, then its FIN (Exim relaying
// through a smarthost does exactly this). RFC 2920 lets it read both replies after; a TCP
// half-close ends only its direction. The listener answers the DATA (250, 550 or 451 alike),
// then 221, then closes, on every kind of raw store.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { RAW_STORE_KINDS } from '../helpers/raw-stores.js';
import { dotStuff } from '../helpers/smtp-client.js';

/** Everything the server wrote until it closed, as reply lines, and whether it closed in time. */
async function pipelineThenHalfClose(
  port: number,
  envelopeSender: string,
  raw: Buffer,
  last = '.\r\nQUIT\r\n',
): Promise<{ lines: string[]; closed: boolean }> {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.setEncoding('latin1');
  let received = '';
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  await new Promise<void>((ok, fail) => {
    socket.once('connect', ok);
    socket.once('error', fail);
  });
  const closed = new Promise<boolean>((resolve) => {
    socket.once('close', () => resolve(true));
    socket.on('error', () => {});
    setTimeout(() => resolve(false), 15_000).unref();
  });
  const waitFor = async (count: number): Promise<void> => {
    for (let i = 0; i < 400 && received.split('\r\n').filter((l) => /^\d{3} /.test(l)).length < count; i += 1) {
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  // the greeting, then each command answered before the next (as Exim does before DATA)
  await waitFor(1);
  socket.write(`EHLO ${FIXTURE_SESSION.helo}\r\n`);
  await waitFor(2);
  socket.write(`MAIL FROM:<${envelopeSender}>\r\n`);
  await waitFor(3);
  socket.write(`RCPT TO:<${PROCESSING_ADDRESS}>\r\n`);
  await waitFor(4);
  socket.write('DATA\r\n');
  await waitFor(5);
  const body = dotStuff(raw);
  socket.write(body.subarray(-2).toString('latin1') === '\r\n' ? body : Buffer.concat([body, Buffer.from('\r\n')]));
  socket.end(last); // one write, then the FIN
  const didClose = await closed;
  socket.destroy();
  return { lines: received.split('\r\n').filter((l) => /^\d{3} /.test(l)), closed: didClose };
}

describe.each(RAW_STORE_KINDS)('a client that half-closes after `.` and QUIT, with the $name store', (kind) => {
  let gateway: TestGateway;
  beforeAll(async () => {
    await kind.setup();
    gateway = await startTestGateway({ rawStore: kind });
  });
  afterAll(async () => {
    await gateway.close();
    await kind.teardown();
  });

  it.each([
    ['250', 'dkim-pass-aligned.eml', 'bounce@acme.example', /^250 /],
    ['550', 'dkim-body-altered.eml', 'bounce@acme.example', /^550 /],
    ['451', 'dns-servfail.eml', 'bounce@servfail.acme.example', /^451 /],
  ])('gets the DATA reply (%s), then 221, then the close', async (_code, file, sender, dataReply) => {
    const { lines, closed } = await pipelineThenHalfClose(gateway.port, sender, fixture(file));
    expect(lines.slice(0, 4).map((l) => l.slice(0, 3))).toEqual(['220', '250', '250', '250']);
    expect(lines[4]).toMatch(/^354 /);
    expect(lines[5]).toMatch(dataReply);
    expect(lines[6]).toMatch(/^221 /);
    expect(lines).toHaveLength(7);
    expect(closed).toBe(true);
  });

  it('answers the DATA of a client that half-closes without QUIT, then closes', async () => {
    const { lines, closed } = await pipelineThenHalfClose(gateway.port, 'bounce@acme.example', fixture('dkim-pass-aligned.eml'), '.\r\n');
    expect(lines[5]).toMatch(/^250 /);
    expect(lines).toHaveLength(6);
    expect(closed).toBe(true);
  });
});
