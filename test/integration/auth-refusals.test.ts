// "Why did Acme's letter bounce?": messages that fail SPF, DKIM, alignment or the From check are
// recorded in the session like rule refusals, in their own record with its own budget, and the
// refused page shows them with a filter, their From marked as only claimed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authRefusals } from '../../src/intake/auth-refusals.js';
import { SessionRefusals } from '../../src/intake/session-refusals.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { sendOnce } from '../helpers/smtp-client.js';

let gateway: TestGateway;
let ops: OpsServer;
const AUTH = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`, accept: 'text/html' };

async function send(file: string, from: string): Promise<string> {
  const replies = await sendOnce(gateway.port, { from, to: [PROCESSING_ADDRESS], raw: fixture(file) });
  return replies.data?.text ?? '';
}

beforeAll(async () => {
  gateway = await startTestGateway();
  ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: createMetrics().registry,
    redis: gateway.redis,
    queue: gateway.queue,
    store: gateway.store,
    dashboard: { user: 'admin', password: 'pw' },
    refusals: new SessionRefusals(gateway.redis, gateway.prefix, gateway.config.recordRetentionMs),
    authRefusals: authRefusals(gateway.redis, gateway.prefix),
  });
}, 30_000);

afterAll(async () => {
  await ops?.close();
  await gateway?.close();
});

describe('refusals for failed authentication', () => {
  it('records each with the failed check and the claimed From, within a few per client network a minute, kept a week', async () => {
    expect(await send('spf-fail.eml', 'bounce@fail.acme.example')).toMatch(/^550 5\.7\.1 SPF fail for fail\.acme\.example/);
    expect(await send('dkim-unaligned.eml', 'bounce@acme.example')).toMatch(/^550 5\.7\.1 no passing DKIM signature/);
    expect(await send('no-pdf.eml', 'bounce@acme.example')).toMatch(/^550 5\.6\.0 NoPdfAttachment/);
    const record = authRefusals(gateway.redis, gateway.prefix);
    const [dkim, spf] = await record.list(10, Date.now());
    expect(spf).toMatchObject({
      reasonCode: 'SPF', // fail.acme.example is aligned with acme.example (relaxed): only SPF failed
      from: 'Acme Utilities <letters@acme.example>',
      messageId: '<spf-fail@acme.example>',
      envelopeFrom: 'bounce@fail.acme.example',
      clientIp: '127.0.0.1',
      reply: '550 5.7.1 SPF fail for fail.acme.example from 127.0.0.1',
    });
    expect(dkim).toMatchObject({ reasonCode: 'DKIM', messageId: '<dkim-unaligned@acme.example>' });
    expect(await gateway.redis.pttl(`${gateway.prefix}:refused-auth`)).toBeGreaterThan(7 * 24 * 3600 * 1000 - 60_000);

    // The same client keeps failing: past five a minute, it is refused but no longer recorded.
    for (let i = 0; i < 5; i += 1) await send('unsigned.eml', 'bounce@acme.example');
    const kept = await record.list(100, Date.now());
    expect(kept.length).toBeLessThanOrEqual(5 + 2); // a minute boundary may fall inside the burst
    expect(kept.length).toBeGreaterThanOrEqual(5);
  });

  it('shows them on the refused page beside the rule refusals, with a filter by check', async () => {
    const all = await (await fetch(`${ops.url}/admin/intakes/refused`, { headers: AUTH })).text();
    expect(all).toContain('<td>failed SPF</td>');
    expect(all).toContain('claimed From (not authenticated)');
    expect(all).toContain('NoPdfAttachment');
    const spf = await (await fetch(`${ops.url}/admin/intakes/refused?check=SPF`, { headers: AUTH })).text();
    expect(spf).toContain('&lt;spf-fail@acme.example&gt;');
    expect(spf).not.toContain('&lt;dkim-unaligned@acme.example&gt;');
    expect(spf).not.toContain('NoPdfAttachment');
    const rules = await (await fetch(`${ops.url}/admin/intakes/refused?check=rules`, { headers: AUTH })).text();
    expect(rules).toContain('NoPdfAttachment');
    expect(rules).not.toContain('claimed From');
    expect((await fetch(`${ops.url}/admin/intakes/refused?check=nonsense`, { headers: AUTH })).status).toBe(400);
  });
});
