// The authentication decision has one overall bound: a DNS server that never answers (each query
// may be bounded, but SPF and DKIM make many) gives 451 4.7.0 within AUTH_TIMEOUT_MS, never a hang.
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { loadZoneResolver } from '../../src/auth/zone-resolver.js';
import type { DnsResolver } from '../../src/net/resolver.js';
import { FIXTURE_DIR, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const AUTH_TIMEOUT_MS = 1000;
const MARGIN_MS = 1000;
const zone = loadZoneResolver(resolve(FIXTURE_DIR, 'zone.json'));
/** The fixture zone, except that the SPF record of acme.example is asked for and never answered. */
const silentForSpf: DnsResolver = (name, rrtype) =>
  name === 'acme.example' && rrtype === 'TXT' ? new Promise(() => undefined) : zone(name, rrtype);

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({ resolver: silentForSpf, env: { AUTH_TIMEOUT_MS: String(AUTH_TIMEOUT_MS) } });
});
afterAll(async () => {
  await gateway.close();
});

describe('the authentication decision', () => {
  it('is answered 451 4.7.0 within AUTH_TIMEOUT_MS when DNS never answers', async () => {
    const raw = await signedLetter({ title: 'DNS never answers' });
    const started = Date.now();
    const reply = await Promise.race([
      sendOnce(gateway.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo }).then(
        (r) => r.data?.text,
      ),
      new Promise<string>((ok) => setTimeout(() => ok('(no reply)'), AUTH_TIMEOUT_MS + MARGIN_MS + 2000)),
    ]);
    expect(reply).toMatch(/^451 4\.7\.0 authentication could not be completed/);
    expect(Date.now() - started).toBeLessThan(AUTH_TIMEOUT_MS + MARGIN_MS);
  });
});
