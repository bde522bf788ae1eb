// Every admin page carries a Content-Security-Policy that runs no inline script (the second
// wall behind escaping), and the ops server's bare address is a landing page, not a JSON 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRefusalRecords } from '../../src/intake/refusal-records.js';
import { SelfTestReports } from '../../src/intake/self-test-reports.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/ops/metrics.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

let gateway: TestGateway;
let ops: OpsServer;
const AUTH = { authorization: `Basic ${Buffer.from('admin:pw').toString('base64')}`, accept: 'text/html' };

beforeAll(async () => {
  gateway = await startTestGateway();
  const records = openRefusalRecords(gateway.redis, { ...gateway.config, redisPrefix: gateway.prefix });
  ops = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: createMetrics().registry,
    redis: gateway.redis,
    queue: gateway.queue,
    store: gateway.store,
    dashboard: { user: 'admin', password: 'pw' },
    refusals: records.rules,
    authRefusals: records.authentication,
    refusalCounts: records.counts,
    selfTestReports: new SelfTestReports(gateway.redis, gateway.prefix),
  });
}, 30_000);

afterAll(async () => {
  await ops?.close();
  await gateway?.close();
});

/** A <script> a browser would run inline: no src, and not a JSON data block. */
const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)(?![^>]*type="application\/json")[^>]*>/i;

describe('the admin pages', () => {
  it.each(['/admin/intakes', '/admin/intakes/refused', '/admin/self-tests', '/admin/queues', '/admin/intakes/in-none'])(
    '%s carries a Content-Security-Policy with script-src self and no inline script',
    async (path) => {
      const response = await fetch(`${ops.url}${path}`, { headers: AUTH });
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(policy).toContain("frame-ancestors 'none'");
      expect(await response.text()).not.toMatch(INLINE_SCRIPT);
    },
  );

  it('answers even the login refusal with the policy', async () => {
    const response = await fetch(`${ops.url}/admin/intakes`);
    expect(response.status).toBe(401);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('serves a landing page at / linking the pages and the probes', async () => {
    const response = await fetch(`${ops.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    for (const href of [
      '/admin/intakes',
      '/admin/intakes/refused',
      '/admin/self-tests',
      '/admin/queues',
      '/healthz',
      '/readyz',
      '/metrics',
    ]) {
      expect(html).toContain(`<a href="${href}">`);
    }
  });
});
