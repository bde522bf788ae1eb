// Every refusal is found: beside the sampled records (a few per client network a minute), each
// refusal is counted per client network, check, claimed From domain and reply code, and the
// counts are never dropped. A sender whose DNS breaks sends exactly such a burst.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authRefusals } from '../../src/intake/auth-refusals.js';
import { RefusalCounts } from '../../src/intake/refusal-counts.js';
import { SessionRefusals } from '../../src/intake/session-refusals.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { fixture, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SmtpClient } from '../helpers/smtp-client.js';

let gateway: TestGateway;
let ops: OpsServer;
const AUTH = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}` };

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
    refusalCounts: new RefusalCounts(gateway.redis, gateway.prefix, gateway.config.recordRetentionMs, gateway.config.refusalCountKeys),
  });
}, 30_000);

afterAll(async () => {
  await ops?.close();
  await gateway?.close();
});

interface Listed {
  readonly counts?: { network: string; check: string; fromDomain: string; reply: string; count: number }[];
  readonly refused?: unknown[];
}

describe('refusal counts', () => {
  it('counts all 30 refusals of a burst from one network in a minute, and samples the first and the last', async () => {
    const { client } = await SmtpClient.open(gateway.port);
    const replies: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const raw = Buffer.from(
        fixture('unsigned.eml')
          .toString('latin1')
          .replace(/^Message-ID: .*$/im, `Message-ID: <burst-${i}@acme.example>`),
        'latin1',
      );
      const sent = await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw });
      replies.push(sent.data?.text ?? '');
      await client.command('RSET');
    }
    await client.quit();
    expect(replies.every((r) => r.startsWith('550 5.7.1'))).toBe(true);

    const body = (await (await fetch(`${ops.url}/admin/intakes/refused?format=json`, { headers: AUTH })).json()) as Listed;
    const counted = (body.counts ?? []).reduce((sum, c) => sum + c.count, 0);
    const found = body.counts === undefined ? (body.refused ?? []).length : counted;
    expect(found, `${found} of 30 refusals found`).toBe(30);
    expect(body.counts).toEqual([
      expect.objectContaining({ network: '127.0.0.0/24', check: 'DKIM', fromDomain: 'acme.example', reply: '550 5.7.1', count: 30 }),
    ]);
    const ids = JSON.stringify(body);
    expect(ids).toContain('<burst-0@acme.example>');
    expect(ids).toContain('<burst-29@acme.example>');
  });

  it('finds a sampled refusal by Message-ID in the intake search, and says how many were counted but not sampled', async () => {
    const html = { ...AUTH, accept: 'text/html' };
    const q = (text: string) => `${ops.url}/admin/intakes?q=${encodeURIComponent(text)}`;
    const byId = await (await fetch(q('<burst-29@acme.example>'), { headers: html })).text();
    expect(byId).toContain('Refused in the SMTP session');
    expect(byId).toContain('&lt;burst-29@acme.example&gt;');
    const unsampled = await (await fetch(q('<burst-12@acme.example>'), { headers: html })).text();
    expect(unsampled).toContain('No sampled refusal matches');
    expect(unsampled).toMatch(/2[34] of 30 refusals were counted but not sampled/);
    const byFrom = (await (await fetch(q('letters@acme.example'), { headers: AUTH })).json()) as {
      refused: { samples: unknown[]; counted: number; notSampled: number; fromDomain: string };
    };
    expect(byFrom.refused).toMatchObject({ counted: 30, fromDomain: 'acme.example' });
    expect(byFrom.refused.samples.length + byFrom.refused.notSampled).toBe(30);
    const page = await (await fetch(`${ops.url}/admin/intakes/refused`, { headers: html })).text();
    expect(page).toMatch(/<td class="num">30<\/td>\n<td>failed DKIM<\/td>\n<td>acme.example<\/td>\n<td>127.0.0.0\/24<\/td>/);
  });

  it('holds at most N distinct keys a day, counting the rest in an "other" row, never dropped', async () => {
    const counts = new RefusalCounts(gateway.redis, `${gateway.prefix}:bound`, 90 * 24 * 3600 * 1000, 3);
    const at = Date.UTC(2026, 10, 27, 14, 2, 0);
    const outcomes: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      outcomes.push(
        await counts.add({
          at: at + i * 1000,
          reasonCode: 'SPF',
          reply: '550 5.7.1 SPF fail for x',
          from: `Someone <a@d${i}.example>`,
          messageId: `<m${i}@d${i}.example>`,
          subject: 'invoice',
          envelopeFrom: '',
          clientIp: '203.0.113.9',
          helo: 'h',
        }),
      );
    }
    expect(outcomes).toEqual(['counted', 'counted', 'counted', ...Array<string>(7).fill('other')]);
    const listed = await counts.list(at + 60_000);
    expect(listed.map((c) => [c.fromDomain, c.count])).toEqual([
      ['other', 7],
      ['d2.example', 1],
      ['d1.example', 1],
      ['d0.example', 1],
    ]);
    expect(listed[0]).toMatchObject({ firstSeen: at + 3000, lastSeen: at + 9000, sample: { messageId: '<m3@d3.example>' } });
    const ttl = await gateway.redis.pttl(`${gateway.prefix}:bound:refusal-counts:${Math.floor(at / 86_400_000)}`);
    expect(ttl).toBeGreaterThan(0);
    expect(await counts.list(at + 60_000, { fromDomain: 'D1.example' })).toHaveLength(1);
    expect(await counts.list(at + 91 * 24 * 3600 * 1000)).toEqual([]);
  });
});
