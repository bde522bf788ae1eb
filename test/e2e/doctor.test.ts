// `letter-intake doctor` against a healthy test deployment and broken ones: a private durable
// redis-server, the sandbox Sender API over HTTP, a zone file, a fresh self-signed certificate,
// and intake records written by a real listener from two signed fixtures. Only the clock (for
// certificate expiry) and DNS (the zone file) are injected.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadZoneResolver } from '../../src/auth/zone-resolver.js';
import { loadConfig } from '../../src/config.js';
import type { CheckResult } from '../../src/doctor/result.js';
import { runDoctor } from '../../src/doctor/run-doctor.js';
import { silentObserver } from '../../src/intake/observer.js';
import { createLogger } from '../../src/log.js';
import { mtaStsPolicyId } from '../../src/mta-sts/policy.js';
import { openRawStore } from '../../src/raw-store/open-store.js';
import { startSmtpPart } from '../../src/runtime/smtp-part.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { FIXTURE_DIR, fixture, intakeIdOf, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { runCommand, startRole } from '../helpers/processes.js';
import { randomPrefix } from '../helpers/redis.js';
import { type RedisServer, startRedisServer } from '../helpers/redis-server.js';
import { sendOnce } from '../helpers/smtp-client.js';

const DAY_MS = 24 * 3600 * 1000;
const SECRETS = { ACME_API_SECRET: 'acme-test-secret', GLOBEX_API_SECRET: 'globex-test-secret' };
const prefix = randomPrefix();
let dir: string;
let redis: RedisServer;
let sandbox: RunningSandbox;
let healthy: Record<string, string>;
let sentAt: number;

/** The fixture senders, their secrets moved to variables (an inline secret is a warning). */
function writeSenders(file: string): void {
  const fixtures: unknown = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8'));
  const text = JSON.stringify(fixtures)
    .replace('"apiClientSecret":"acme-test-secret"', '"apiClientSecretEnv":"ACME_API_SECRET"')
    .replace('"apiClientSecret":"globex-test-secret"', '"apiClientSecretEnv":"GLOBEX_API_SECRET"');
  expect(text).not.toContain('apiClientSecret"');
  writeFileSync(file, text);
}

/** The policy the healthy deployment serves, and whose id its zone publishes. */
const MTA_STS = { mode: 'enforce', mx: ['mx.intake.example'], maxAgeSeconds: 604_800 } as const;

/** The fixture zone plus the inbound domain's MX, minus the names in `without`. */
function writeZone(file: string, without: readonly string[] = []): string {
  const zone: Record<string, unknown> = JSON.parse(readFileSync(join(FIXTURE_DIR, 'zone.json'), 'utf8'));
  zone['intake.example'] = { MX: [{ exchange: 'mx.intake.example.', priority: 10 }] };
  zone['_mta-sts.intake.example'] = { TXT: [`v=STSv1; id=${mtaStsPolicyId(MTA_STS)}`] };
  zone['_smtp._tls.intake.example'] = { TXT: ['v=TLSRPTv1; rua=mailto:tls-reports@intake.example'] };
  for (const name of without) delete zone[name];
  writeFileSync(file, JSON.stringify(zone));
  return file;
}

function certificateFor(name: string, host: string): { cert: string; key: string } {
  return selfSignedCertificate(dir, name, host, 90);
}

async function doctor(overrides: Record<string, string> = {}, clock: () => number = Date.now): Promise<CheckResult[]> {
  const env = { ...healthy, ...overrides };
  return runDoctor({
    config: loadConfig(env),
    env,
    clock,
    resolver: loadZoneResolver(env.DNS_ZONE_FILE ?? ''),
    logger: createLogger({ level: 'silent' }),
  });
}

const named = (results: readonly CheckResult[], name: string): CheckResult | undefined => results.find((r) => r.name === name);
const problems = (results: readonly CheckResult[]): string[] =>
  results.filter((r) => r.status !== 'ok').map((r) => `${r.status} ${r.name}`);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'letter-intake-doctor-'));
  redis = await startRedisServer();
  writeSenders(join(dir, 'senders.json'));
  const tls = certificateFor('mx', 'mx.intake.example');
  healthy = testEnv(prefix, {
    REDIS_URL: redis.url,
    SENDERS_FILE: join(dir, 'senders.json'),
    DNS_ZONE_FILE: writeZone(join(dir, 'zone.json')),
    TLS_CERT_FILE: tls.cert,
    TLS_KEY_FILE: tls.key,
    SMTP_HOSTNAME: 'mx.intake.example',
    MTA_STS_MODE: MTA_STS.mode,
    MTA_STS_MX: MTA_STS.mx.join(','),
    ...SECRETS,
  });
  const directory = loadSenderDirectory(join(dir, 'senders.json'), healthy);
  sandbox = await startSandbox({ directory, clock: Date.now, logger: createLogger({ level: 'silent' }), host: '127.0.0.1', port: 0 });
  healthy.SENDER_API_URL = sandbox.url;

  // Recent intakes from both senders, accepted by a real listener: their records hold the selectors.
  const config = loadConfig({ ...healthy, TLS_CERT_FILE: '', TLS_KEY_FILE: '' });
  const rawStore = openRawStore({ location: config.rawStore.location, timeoutMs: config.enqueueTimeoutMs, s3PathStyle: false });
  const listener = await startSmtpPart({
    config,
    logger: createLogger({ level: 'silent' }),
    clock: Date.now,
    observer: silentObserver,
    redisTopology: { kind: 'standalone', url: redis.url, tls: undefined },
    rawStore,
  });
  try {
    for (const [file, from] of [
      ['dkim-pass-aligned.eml', 'letters@acme.example'],
      ['second-sender-globex.eml', 'letters@globex.example'],
    ] as const) {
      const replies = await sendOnce(listener.port, { from, to: [PROCESSING_ADDRESS], raw: fixture(file) });
      intakeIdOf(replies.data?.text ?? '');
    }
  } finally {
    await listener.close();
    rawStore.close();
  }
  sentAt = Date.now();
}, 60_000);

afterAll(async () => {
  await sandbox.close();
  await redis.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('doctor on MTA-STS', () => {
  it('names a stale policy id, an MX outside the policy and its certificate, and a missing TLS-RPT record', async () => {
    const zone = join(dir, 'zone-mta-sts.json');
    writeZone(zone, ['_smtp._tls.intake.example']);
    const records = JSON.parse(readFileSync(zone, 'utf8'));
    records['_mta-sts.intake.example'] = { TXT: ['v=STSv1; id=20260101'] };
    records['intake.example'] = {
      MX: [
        { exchange: 'mx.intake.example.', priority: 10 },
        { exchange: 'backup.other.example.', priority: 20 },
      ],
    };
    writeFileSync(zone, JSON.stringify(records));
    const results = await doctor({ DNS_ZONE_FILE: zone });
    expect(named(results, '_mta-sts.intake.example')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(`id=20260101, while the policy served now is id=${mtaStsPolicyId(MTA_STS)}`),
    });
    expect(named(results, 'policy mx of intake.example')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('MX backup.other.example matches no MTA_STS_MX name'),
    });
    expect(named(results, "certificate for intake.example's MX")).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('does not cover backup.other.example'),
    });
    expect(named(results, '_smtp._tls.intake.example')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('no v=TLSRPTv1 record'),
    });
  });

  it('without MTA_STS_MODE warns that a stripped STARTTLS goes unnoticed', async () => {
    const results = await doctor({ MTA_STS_MODE: '', MTA_STS_MX: '' });
    expect(named(results, 'policy of intake.example')).toMatchObject({ status: 'warn', detail: expect.stringContaining('clear text') });
  });
});

describe('letter-intake doctor on a healthy deployment', () => {
  it('passes every check; the only remarks are the plain-http loopback Sender API and no malware scanner', async () => {
    const results = await doctor();
    expect(problems(results)).toEqual(['warn HTTPS', 'warn CLAMD_URL']);
    expect(named(results, 'HTTPS')?.detail).toContain('loopback');
    const names = results.map((r) => `${r.area} / ${r.name}`);
    expect(names).toEqual(
      expect.arrayContaining([
        'Redis / appendonly',
        'Redis / appendfsync',
        'Redis / maxmemory-policy',
        'Redis / memory headroom',
        'Raw store / writable and readable',
        'Sender API / login as Acme Utilities (acme-client)',
        'Sender API / login as Globex (globex-client)',
        'DNS / MX of intake.example',
        'DNS / SPF of acme.example',
        'DNS / SPF of globex.example',
        'DNS / DKIM key rsa2048._domainkey.acme.example',
        'DNS / DKIM key rsa2048._domainkey.globex.example',
        'TLS / key matches certificate',
        'TLS / covers SMTP_HOSTNAME',
        'TLS / expiry',
        'MTA-STS / _mta-sts.intake.example',
        'MTA-STS / policy mx of intake.example',
        "MTA-STS / certificate for intake.example's MX",
        'MTA-STS / _smtp._tls.intake.example',
        'Sender directory / duplicate addresses',
        'Sender directory / secrets',
      ]),
    );
    expect(named(results, 'expiry')?.detail).toMatch(/^(89|90) days left/);
  });

  it('prints the checklist and exits 0 as a command', async () => {
    const run = await runCommand(['doctor'], healthy);
    expect(run.text).toMatch(/^Redis\n {2}✓ reachable: Redis \d/m);
    expect(run.text).toContain('  ✓ login as Globex (globex-client): accepted');
    expect(run.text).toContain('  ! HTTPS: ');
    expect(run.text).not.toContain('✗');
    expect(run.code).toBe(0);
  });
});

describe('letter-intake doctor on broken deployments', () => {
  it('fails a Redis without an append-only file, as a command with exit 1, and every role warns at start', async () => {
    const volatile = await startRedisServer(['--appendonly', 'no']);
    try {
      const results = await doctor({ REDIS_URL: volatile.url });
      expect(named(results, 'appendonly')).toMatchObject({ status: 'fail', detail: expect.stringContaining('appendonly yes') });
      const run = await runCommand(['doctor'], { ...healthy, REDIS_URL: volatile.url });
      expect(run.text).toContain('  ✗ appendonly: no: accepted mail lives in memory only');
      expect(run.code).toBe(1);
      const role = await startRole('smtp', { ...healthy, REDIS_URL: volatile.url, OPS_HTTP_PORT: '0' });
      try {
        const warning = await role.waitForLog((l) => l.event === 'redis.durability');
        expect(warning).toMatchObject({ level: 40, check: 'appendonly', status: 'fail' });
      } finally {
        await role.stop();
      }
    } finally {
      await volatile.destroy();
    }
  }, 60_000);

  it('names a variable of its own prefixes that it does not know, with the nearest known name: a ! line, and a warning at start', async () => {
    const results = await doctor({ SMTP_COLOUR: 'blue', REDIS_VERSION: '7.4.1' });
    expect(named(results, 'SMTP_COLOUR')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/nearest known name is SMTP_\w+/),
    });
    expect(named(results, 'REDIS_VERSION')).toBeUndefined();
    const role = await startRole('smtp', { ...healthy, SMTP_COLOUR: 'blue', OPS_HTTP_PORT: '0' });
    try {
      const warning = await role.waitForLog((l) => l.event === 'config.unknown_variable');
      expect(warning).toMatchObject({ level: 40, variable: 'SMTP_COLOUR', nearest: expect.stringMatching(/^SMTP_/) });
    } finally {
      await role.stop();
    }
  }, 60_000);

  it('warns about appendfsync everysec with its consequence', async () => {
    const relaxed = await startRedisServer(['--appendfsync', 'everysec']);
    try {
      const results = await doctor({ REDIS_URL: relaxed.url });
      expect(named(results, 'appendfsync')).toMatchObject({ status: 'warn', detail: expect.stringContaining('up to a second') });
    } finally {
      await relaxed.destroy();
    }
  }, 30_000);

  it('names the sender domain whose SPF record is missing, and its addresses', async () => {
    const results = await doctor({ DNS_ZONE_FILE: writeZone(join(dir, 'zone-no-globex-spf.json'), ['globex.example']) });
    expect(named(results, 'SPF of globex.example')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('no SPF record: mail from letters@globex.example will be refused'),
    });
    expect(named(results, 'SPF of acme.example')?.status).toBe('ok');
    expect(named(results, 'addresses with SPF')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('letters@globex.example'),
    });
  });

  it('fails an expired certificate and warns three weeks before', async () => {
    const expired = await doctor({}, () => sentAt + 100 * DAY_MS);
    expect(named(expired, 'expiry')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/^expired on \d{4}-\d\d-\d\d: renew/) });
    const soon = await doctor({}, () => sentAt + 80 * DAY_MS);
    expect(named(soon, 'expiry')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^(9|10) days left/) });
  });

  it('fails a certificate for another name and a key of another certificate', async () => {
    const other = certificateFor('other', 'mail.elsewhere.example');
    const results = await doctor({ TLS_CERT_FILE: other.cert });
    expect(named(results, 'covers SMTP_HOSTNAME')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('mail.elsewhere.example'),
    });
    expect(named(results, 'key matches certificate')?.status).toBe('fail');
  });

  it('names the sender whose API credentials are wrong', async () => {
    const results = await doctor({ ACME_API_SECRET: 'not-the-secret' });
    expect(named(results, 'login as Acme Utilities (acme-client)')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('InvalidCredentials'),
    });
    expect(named(results, 'login as Globex (globex-client)')?.status).toBe('ok');
  });

  it("names the sender whose API allow-list does not hold the gateway's address", async () => {
    const file = join(dir, 'senders-allow-list.json');
    writeFileSync(
      file,
      readFileSync(join(dir, 'senders.json'), 'utf8').replace(
        /"allowedIps":\["127\.0\.0\.1\/32","::1\/128"\](\}\]\}$)/,
        '"allowedIps":["203.0.113.0/24"]$1',
      ),
    );
    const strict = await startSandbox({
      directory: loadSenderDirectory(file, healthy),
      clock: Date.now,
      logger: createLogger({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
    });
    try {
      const results = await doctor({ SENDER_API_URL: strict.url });
      expect(named(results, 'login as Globex (globex-client)')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('IpAddressUnauthorized'),
      });
      expect(named(results, 'login as Acme Utilities (acme-client)')?.status).toBe('ok');
    } finally {
      await strict.close();
    }
  });

  it('names a DKIM selector whose key is gone, and an MX that points elsewhere', async () => {
    const zone: Record<string, unknown> = JSON.parse(
      readFileSync(writeZone(join(dir, 'zone-b.json'), ['rsa2048._domainkey.globex.example']), 'utf8'),
    );
    zone['intake.example'] = { MX: [{ exchange: 'mx.old-provider.example', priority: 10 }] };
    writeFileSync(join(dir, 'zone-b.json'), JSON.stringify(zone));
    const results = await doctor({ DNS_ZONE_FILE: join(dir, 'zone-b.json') });
    expect(named(results, 'DKIM key rsa2048._domainkey.globex.example')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('s=rsa2048 will be refused'),
    });
    expect(named(results, 'MX of intake.example')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('mx.old-provider.example, not SMTP_HOSTNAME mx.intake.example'),
    });
  });

  it("shows each sender's settings, checks its own addresses' MX and its listed selectors' keys", async () => {
    const file = join(dir, 'senders-settings.json');
    const senders = JSON.parse(readFileSync(join(dir, 'senders.json'), 'utf8')) as { senders: Record<string, unknown>[] };
    const [acme, globex] = senders.senders;
    writeFileSync(
      file,
      JSON.stringify({
        senders: [
          { ...acme, processingAddresses: ['acme@letters.elsewhere.example'], dkimSelectors: ['rsa2048', 'gone'] },
          { ...globex, limits: { messagesPerHour: 100 } },
        ],
      }),
    );
    const results = await doctor({ SENDERS_FILE: file });
    expect(named(results, 'settings of Acme Utilities')?.detail).toBe(
      'DKIM selectors rsa2048, gone; own addresses acme@letters.elsewhere.example',
    );
    expect(named(results, 'settings of Globex')?.detail).toBe('limits 100 messages/hour');
    expect(named(results, 'MX of letters.elsewhere.example')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('no MX record'),
    });
    expect(named(results, 'MX of intake.example')?.status).toBe('ok');
    expect(named(results, 'DKIM key gone._domainkey.acme.example')?.status).toBe('fail');
  });

  it('names an address claimed by two senders and a secret written into the file', async () => {
    const file = join(dir, 'senders-dup.json');
    const senders: unknown = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8'));
    writeFileSync(file, JSON.stringify(senders).replace('"letters@globex.example"', '"Letters@Acme.example"'));
    const results = await doctor({ SENDERS_FILE: file });
    expect(named(results, 'valid')).toMatchObject({ status: 'fail', detail: expect.stringContaining('the gateway will not start') });
    expect(named(results, 'duplicate addresses')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('letters@acme.example (Acme Utilities, Globex)'),
    });
    expect(named(results, 'secrets')).toMatchObject({ status: 'warn', detail: expect.stringContaining('Acme Utilities, Globex') });
  });

  it('fails an unreachable Redis within its bound', async () => {
    const started = Date.now();
    const results = await doctor({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(named(results, 'reachable')).toMatchObject({ area: 'Redis', status: 'fail', detail: expect.stringContaining('REDIS_URL') });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
