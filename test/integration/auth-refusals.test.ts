// "Why did Acme's letter bounce?": messages that fail SPF, DKIM, alignment or the From check are
// recorded in the session like rule refusals, in their own record with its own budget, and the
// refused page shows them with a filter, their From marked as only claimed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_REFUSAL_BUDGET, authRefusals } from '../../src/intake/auth-refusals.js';
import { SessionRefusals } from '../../src/intake/session-refusals.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { dropPrefix, randomPrefix } from '../helpers/redis.js';
import { sendOnce } from '../helpers/smtp-client.js';

const AUTH_WINDOW_MS = AUTH_REFUSAL_BUDGET.windowMs ?? 60_000;
const REFUSAL = {
  at: 0,
  reasonCode: 'SPF',
  reply: '550 5.7.1 SPF fail',
  from: 'a@acme.example',
  messageId: '<m@acme.example>',
  subject: 's',
  envelopeFrom: 'bounce@acme.example',
  clientIp: '192.0.2.1',
  helo: 'mta.example',
};

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
  });

  it("past five a minute per network only the burst's latest is kept beside them: twenty in one window keep the first five and the twentieth", async () => {
    // Fixed times inside one window, so no minute boundary falls inside the burst.
    const prefix = randomPrefix();
    const record = authRefusals(gateway.redis, prefix);
    const windowStart = Math.floor(Date.now() / AUTH_WINDOW_MS) * AUTH_WINDOW_MS;
    try {
      const outcomes = [];
      for (let i = 0; i < 20; i += 1) {
        outcomes.push(await record.add({ ...REFUSAL, at: windowStart + i, clientIp: `192.0.2.${i + 1}` }));
      }
      expect(outcomes).toEqual([...Array(5).fill('recorded'), ...Array(15).fill('latest')]);
      const kept = await record.list(100, windowStart + 20);
      expect(kept.map((r) => r.clientIp).sort()).toEqual(['192.0.2.1', '192.0.2.2', '192.0.2.20', '192.0.2.3', '192.0.2.4', '192.0.2.5']);
      // The next window counts afresh.
      expect(await record.add({ ...REFUSAL, at: windowStart + AUTH_WINDOW_MS })).toBe('recorded');
    } finally {
      await dropPrefix(gateway.redis, prefix);
    }
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
