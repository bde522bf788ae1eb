// A real Exim relaying signed letters to the gateway as its smarthost. Exim pipelines `.` and
// `QUIT` in one write and half-closes its side when nothing else waits for the host: the first
// attempt must get the DATA reply (no "defer (-18) … Remote host closed connection in response
// to end of data"), for an accepted letter and a refused one alike. Exim is fetched and unpacked
// (test/helpers/exim.ts); where it cannot be, the suite skips saying why, unless EXIM_REQUIRED=1
// (CI), where that fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { type Exim, fetchExim } from '../helpers/exim.js';
import { fixture, intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';

let gateway: TestGateway;
let exim: Exim | string;

beforeAll(async () => {
  gateway = await startTestGateway({ worker: true });
  exim = fetchExim(gateway.port, FIXTURE_SESSION.helo);
  if (typeof exim === 'string') {
    if (process.env.EXIM_REQUIRED === '1') throw new Error(`Exim is required here (EXIM_REQUIRED=1) and cannot run: ${exim}`);
    console.warn(`exim-relay: skipped, Exim cannot run here: ${exim}`);
  }
}, 180_000);
afterAll(async () => {
  if (typeof exim !== 'string') exim.cleanup();
  await gateway.close();
});

/** Exim's log lines about one message, found by its Message-ID's unique part. */
function linesFor(log: string, marker: string): string[] {
  const id = log
    .split('\n')
    .find((l) => l.includes(marker))
    ?.split(' ')[2];
  return id === undefined ? [] : log.split('\n').filter((l) => l.includes(` ${id} `));
}

describe('Exim relaying to the gateway', () => {
  it('gets the reply to every letter at the first attempt: 250 for signed letters, 550 for a forged one', async (ctx) => {
    if (typeof exim === 'string') return ctx.skip();
    const relay = exim;
    const letters = await Promise.all(
      ['Exim relay one', 'Exim relay two'].map(async (title) => ({
        title,
        marker: `exim-${title.replace(/ /g, '-')}@acme.example`,
        raw: await signedLetter({ title, messageId: `<exim-${title.replace(/ /g, '-')}@acme.example>` }),
      })),
    );
    for (const letter of letters) expect(await relay.relay(letter.raw, 'bounce@acme.example', PROCESSING_ADDRESS)).toBe(0);
    const forged = fixture('dkim-body-altered.eml');
    await relay.relay(forged, 'bounce@acme.example', PROCESSING_ADDRESS);

    const log = relay.mainLog();
    expect(log).not.toContain('defer (-18)');
    expect(log).not.toContain('Remote host closed connection');
    for (const letter of letters) {
      const lines = linesFor(log, letter.marker);
      const delivered = lines.find((l) => l.includes(' => '));
      expect(delivered, lines.join('\n')).toMatch(/C="250 /);
      expect(
        lines.filter((l) => l.includes(' == ')),
        'no deferral',
      ).toEqual([]);
      const intakeId = intakeIdOf(/C="(250 [^"]*)"/.exec(delivered ?? '')?.[1] ?? '');
      expect((await gateway.settled(intakeId)).state).toBe('submitted');
    }
    const refused = log.split('\n').filter((l) => l.includes(' ** ') && l.includes(PROCESSING_ADDRESS));
    expect(refused.join('\n')).toMatch(/550/);
  });
});
