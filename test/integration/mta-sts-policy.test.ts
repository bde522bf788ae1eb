// The MTA-STS policy over real HTTP: served at /.well-known/mta-sts.txt as text/plain whatever
// the Host (a proxy for mta-sts.<domain> forwards that one path), in RFC 8461 §3.2's form; not
// served without MTA_STS_MODE.
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { mtaStsPolicyId, mxMatches } from '../../src/mta-sts/policy.js';
import { type OpsServer, startOpsServer } from '../../src/ops/server.js';

const servers: OpsServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function opsWith(env: Record<string, string>): Promise<OpsServer> {
  const config = loadConfig(env);
  const server = await startOpsServer({
    host: '127.0.0.1',
    port: 0,
    logger: createLogger({ level: 'silent' }),
    registry: new Registry(),
    dashboard: { user: 'admin', password: undefined },
    mtaSts: config.privacy.mtaSts,
  });
  servers.push(server);
  return server;
}

describe('GET /.well-known/mta-sts.txt', () => {
  it('serves the policy as text/plain whatever the Host, lines in CRLF', async () => {
    const ops = await opsWith({ MTA_STS_MODE: 'enforce', MTA_STS_MX: 'mx1.intake.example,*.mx.intake.example', MTA_STS_MAX_AGE: '86400' });
    for (const host of ['mta-sts.intake.example', 'ops.internal:8080']) {
      const response = await fetch(`${ops.url}/.well-known/mta-sts.txt`, { headers: { host } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(await response.text()).toBe(
        'version: STSv1\r\nmode: enforce\r\nmx: mx1.intake.example\r\nmx: *.mx.intake.example\r\nmax_age: 86400\r\n',
      );
    }
  });

  it('is not served without MTA_STS_MODE', async () => {
    const ops = await opsWith({});
    expect((await fetch(`${ops.url}/.well-known/mta-sts.txt`)).status).toBe(404);
  });
});

describe('the policy id and MX patterns', () => {
  const policy = { mode: 'testing', mx: ['mx.intake.example'], maxAgeSeconds: 604_800 } as const;
  it('changes the id exactly when the policy changes', () => {
    expect(mtaStsPolicyId(policy)).toMatch(/^[0-9a-f]{20}$/);
    expect(mtaStsPolicyId({ ...policy })).toBe(mtaStsPolicyId(policy));
    expect(mtaStsPolicyId({ ...policy, mode: 'enforce' })).not.toBe(mtaStsPolicyId(policy));
  });

  it.each([
    ['mx.intake.example', 'MX.intake.example.', true],
    ['*.intake.example', 'mx.intake.example', true],
    ['*.intake.example', 'a.mx.intake.example', false],
    ['*.intake.example', 'intake.example', false],
    ['mx.intake.example', 'mx2.intake.example', false],
  ])('%s matches %s: %s (RFC 8461 §4.1)', (pattern, host, matches) => {
    expect(mxMatches(pattern, host)).toBe(matches);
  });
});
