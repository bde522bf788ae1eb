import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('gives documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.maxMessageBytes).toBe(15 * 1024 * 1024);
    expect(config.maxPdfBytes).toBe(10 * 1024 * 1024);
    expect(config.rawRetentionMs).toBe(7 * 24 * 3600 * 1000);
    expect(config.smtp.port).toBe(2525);
    expect(config.smtp.tls).toBeUndefined();
    expect(Object.isFrozen(config.smtp)).toBe(true);
    expect(config.pdfChecks).toEqual({ mode: 'strict', threads: 2, timeoutMs: 10_000, memoryMb: 256 });
  });

  it('leaves SMTP_PROCESSES to the role when unset (one per core; one for the demo), and takes a number', () => {
    expect(loadConfig({}).smtp.processes).toBeUndefined();
    expect(loadConfig({ SMTP_PROCESSES: '4' }).smtp.processes).toBe(4);
  });

  it('turns the PDF checks off with PDF_CHECKS=off, and sets their limits', () => {
    const config = loadConfig({ PDF_CHECKS: 'off', PDF_CHECK_THREADS: '3', PDF_CHECK_TIMEOUT_MS: '2500', PDF_CHECK_MEMORY_MB: '128' });
    expect(config.pdfChecks).toEqual({ mode: 'off', threads: 3, timeoutMs: 2500, memoryMb: 128 });
  });

  it('reads processing addresses comma-separated, trimmed and lower-cased', () => {
    expect(loadConfig({ INBOUND_ADDRESSES: ' Letters@Intake.example, b@intake.example ' }).inboundAddresses).toEqual([
      'letters@intake.example',
      'b@intake.example',
    ]);
  });

  it.each([
    ['SMTP_PORT', 'twenty-five'],
    ['MAX_PDF_BYTES', '-1'],
    ['INBOUND_ADDRESSES', 'not-an-address'],
    ['REDIS_URL', 'localhost:6379 x'],
    ['LOG_LEVEL', 'loud'],
    ['RAW_STORE_URL', 'file://relative/dir'],
    ['RAW_STORE_URL', 's3://Not_A_Bucket/raw'],
    ['RAW_STORE_URL', 'redis://127.0.0.1/raw'],
    ['NOTICE_SMTP_URL', 'http://relay.example:25'],
    ['NOTICE_FROM', 'postmaster'],
    ['PDF_CHECKS', 'lenient'],
    ['PDF_CHECK_MEMORY_MB', '8'],
    ['SANDBOX_CONTRACT_MODE', 'lenient'],
    ['SANDBOX_STRICT_CONTRACT', 'true'],
    ['API_TITLE_MAX_CHARS', '0'],
    ['API_MAX_PARTS', 'many'],
    ['SMTP_PROCESSES', '0'],
    ['SMTP_PROCESSES', 'two'],
  ])('names %s when its value %j is bad', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(variable);
  });

  it.each([
    ['SMTP_PORT', '99999'],
    ['OPS_HTTP_PORT', '65536'],
    ['SANDBOX_PORT', '-1'],
  ])('refuses %s=%s as a port, naming the variable and the range', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(`${variable}: .*(1 to 65535|at least 0)`));
  });

  it('accepts the ports 1 and 65535, and 0 for any free port', () => {
    expect([1, 65_535, 0].map((p) => loadConfig({ SMTP_PORT: String(p) }).smtp.port)).toEqual([1, 65_535, 0]);
  });

  it.each([
    ['SMTP_PORT', 'twenty-five', 'expected a port number, 1 to 65535 (or 0 for any free port)'],
    ['SMTP_PORT', 'abc', 'expected a port number, 1 to 65535 (or 0 for any free port)'],
    ['WORKER_SWEEP_AGE_MS', 'soon', 'expected a whole number'],
    ['RAW_RETENTION_DAYS', 'a week', 'expected a number of days'],
  ])('says what %s expects instead of "received NaN" for %j', (variable, value, expected) => {
    let message = '';
    try {
      loadConfig({ [variable]: value });
    } catch (err) {
      message = err instanceof Error ? err.message : String(err);
    }
    expect(message).toContain(`${variable}: ${expected}`);
    expect(message).not.toContain('NaN');
  });

  it('keeps raw mail under DATA_DIR/raw unless RAW_STORE_URL says otherwise', () => {
    expect(loadConfig({ DATA_DIR: '/srv/intake' }).rawStore.location).toEqual({ kind: 'file', dir: '/srv/intake/raw' });
    expect(loadConfig({ RAW_STORE_URL: 's3://letters-raw/intake' }).rawStore.location).toEqual({
      kind: 's3',
      bucket: 'letters-raw',
      prefix: 'intake/',
    });
  });

  it('sends notices through the relay URL given, from postmaster@ the announced name unless NOTICE_FROM says otherwise', () => {
    expect(loadConfig({ SMTP_HOSTNAME: 'mx.intake.example' }).notices).toEqual({
      smtpUrl: undefined,
      from: 'postmaster@mx.intake.example',
      attempts: 8,
      timeoutMs: 30_000,
    });
    const config = loadConfig({ NOTICE_SMTP_URL: 'smtps://u:p@relay.example:465', NOTICE_FROM: 'no-reply@intake.example' });
    expect(config.notices).toMatchObject({ smtpUrl: 'smtps://u:p@relay.example:465', from: 'no-reply@intake.example' });
  });

  it('wants both TLS files or neither', () => {
    expect(() => loadConfig({ TLS_KEY_FILE: '/k' })).toThrow(/TLS_KEY_FILE, TLS_CERT_FILE/);
  });

  it('sweeps for unfinished intakes older than three job locks unless told otherwise, and serves the full sandbox by default', () => {
    const defaults = loadConfig({ WORKER_LOCK_MS: '20000' });
    expect([defaults.worker.sweepAgeMs, defaults.worker.sweepIntervalMs, defaults.sandbox.contractMode]).toEqual([60_000, 30_000, 'ours']);
    const set = loadConfig({ WORKER_SWEEP_AGE_MS: '5000', SANDBOX_CONTRACT_MODE: 'foreign-list' });
    expect([set.worker.sweepAgeMs, set.sandbox.contractMode]).toEqual([5000, 'foreign-list']);
  });

  it('knows no limits of the real API unless an operator states them', () => {
    expect(loadConfig({}).apiLimits).toEqual({ titleMaxChars: undefined, maxParts: undefined });
    expect(loadConfig({ API_TITLE_MAX_CHARS: '120', API_MAX_PARTS: '5' }).apiLimits).toEqual({ titleMaxChars: 120, maxParts: 5 });
  });

  describe('a variable under its old name', () => {
    it.each([
      ['RETENTION_DAYS', '14', 'RAW_RETENTION_DAYS'],
      ['API_TIMEOUT_MS', '5000', 'SENDER_API_TIMEOUT_MS'],
      ['HTTP_HOST', '127.0.0.1', 'OPS_HTTP_HOST'],
      ['HTTP_PORT', '9090', 'OPS_HTTP_PORT'],
      ['HTTP_TRUSTED_PROXIES', '10.0.0.1', 'OPS_HTTP_TRUSTED_PROXIES'],
    ])('%s is refused at start, naming its new name', (old, value, now) => {
      expect(() => loadConfig({ [old]: value })).toThrow(
        new ConfigError(`invalid configuration:\n  ${old}: renamed ${now}; set ${now} instead`),
      );
    });

    it('is refused even beside its new name, every old one listed', () => {
      expect(() => loadConfig({ OPS_HTTP_PORT: '9090', HTTP_PORT: '9090', RETENTION_DAYS: '3' })).toThrow(
        /RETENTION_DAYS: renamed RAW_RETENTION_DAYS; set RAW_RETENTION_DAYS instead\n {2}HTTP_PORT: renamed OPS_HTTP_PORT/,
      );
    });

    it('is no setting when empty, as any empty variable', () => {
      expect(loadConfig({ HTTP_PORT: '', OPS_HTTP_PORT: '9090' }).opsHttp.port).toBe(9090);
    });
  });

  describe('retention that must outlive a notice', () => {
    it('refuses a record retention too short for the notice its intake earns, naming the variable', () => {
      for (const days of ['0', '0.01']) {
        expect(() => loadConfig({ RECORD_RETENTION_DAYS: days, RAW_RETENTION_DAYS: '0' })).toThrow(ConfigError);
        expect(() => loadConfig({ RECORD_RETENTION_DAYS: days, RAW_RETENTION_DAYS: '0' })).toThrow(/RECORD_RETENTION_DAYS.*notice/);
      }
    });

    it('counts the notice attempts: many slow attempts need a longer record retention', () => {
      // 30 attempts doubling from 1 s wait 2^29 s (over 17 years) before the last one.
      expect(() => loadConfig({ NOTICE_ATTEMPTS: '30', RECORD_RETENTION_DAYS: '90' })).toThrow(/RECORD_RETENTION_DAYS/);
      expect(loadConfig({ NOTICE_ATTEMPTS: '8', RECORD_RETENTION_DAYS: '1', RAW_RETENTION_DAYS: '0.5' }).recordRetentionMs).toBe(
        24 * 3600 * 1000,
      );
    });

    it('refuses raw mail kept as long as its record or longer: the blob would outlive the record and be recovered as an intake Redis lost', () => {
      for (const [raw, record] of [
        ['30', '14'],
        ['14', '14'],
      ] as const) {
        expect(() => loadConfig({ RAW_RETENTION_DAYS: raw, RECORD_RETENTION_DAYS: record })).toThrow(
          /RAW_RETENTION_DAYS: must be shorter than RECORD_RETENTION_DAYS \(14\) by more than RAW_STORE_SWEEP_INTERVAL_MS/,
        );
      }
      // The blob is deleted at the first housekeeping round after its retention: that round must come before the record expires.
      expect(() =>
        loadConfig({ RAW_RETENTION_DAYS: '13.99', RECORD_RETENTION_DAYS: '14', RAW_STORE_SWEEP_INTERVAL_MS: String(3600_000) }),
      ).toThrow(/RAW_RETENTION_DAYS/);
      expect(loadConfig({ RAW_RETENTION_DAYS: '13', RECORD_RETENTION_DAYS: '14' }).rawRetentionMs).toBe(13 * 24 * 3600 * 1000);
    });
  });

  describe('deadlines for slow clients', () => {
    it('gives DATA 10 minutes and a session 30 by default', () => {
      const { smtp } = loadConfig({});
      expect([smtp.dataTimeoutMs, smtp.sessionTimeoutMs]).toEqual([600_000, 1_800_000]);
    });

    it('refuses a deadline that is not shorter than RAW_STORE_ORPHAN_AFTER_MS, naming the variable', () => {
      expect(() => loadConfig({ RAW_STORE_ORPHAN_AFTER_MS: '1800000' })).toThrow(
        /SMTP_SESSION_TIMEOUT_MS: must be shorter than RAW_STORE_ORPHAN_AFTER_MS/,
      );
      expect(() => loadConfig({ RAW_STORE_ORPHAN_AFTER_MS: '120000', SMTP_SESSION_TIMEOUT_MS: '60000' })).toThrow(
        /SMTP_DATA_TIMEOUT_MS: must be shorter than RAW_STORE_ORPHAN_AFTER_MS/,
      );
      const fitting = loadConfig({ RAW_STORE_ORPHAN_AFTER_MS: '120000', SMTP_SESSION_TIMEOUT_MS: '60000', SMTP_DATA_TIMEOUT_MS: '60000' });
      expect(fitting.smtp.sessionTimeoutMs).toBe(60_000);
    });

    it('refuses a session deadline that, with the bounds after the end of DATA, reaches RAW_STORE_ORPHAN_AFTER_MS', () => {
      // a message's reply waits for authentication (30 s), the MIME walk (10 s) and storing (5 s) past the session deadline
      const atOrphan = {
        RAW_STORE_ORPHAN_AFTER_MS: '120000',
        SMTP_DATA_TIMEOUT_MS: '60000',
        AUTH_TIMEOUT_MS: '30000',
        ENQUEUE_TIMEOUT_MS: '5000',
      };
      expect(() => loadConfig({ ...atOrphan, SMTP_SESSION_TIMEOUT_MS: '75000' })).toThrow(
        /SMTP_SESSION_TIMEOUT_MS: .*AUTH_TIMEOUT_MS.*ENQUEUE_TIMEOUT_MS.*shorter than RAW_STORE_ORPHAN_AFTER_MS/,
      );
      expect(loadConfig({ ...atOrphan, SMTP_SESSION_TIMEOUT_MS: '74999' }).smtp.sessionTimeoutMs).toBe(74_999);
    });
  });

  describe('the malware scan, MTA-STS and encryption at rest', () => {
    const KEY = Buffer.alloc(32, 7).toString('base64');
    const OTHER = Buffer.alloc(32, 9).toString('base64');

    it('are all off by default', () => {
      expect(loadConfig({}).privacy).toEqual({ clamd: undefined, mtaSts: undefined, rawStoreKeys: undefined, s3Sse: undefined });
    });

    it('scans with clamd where CLAMD_URL says, holding letters while it is away unless CLAMD_REQUIRED=false', () => {
      expect(loadConfig({ CLAMD_URL: 'unix:/run/clamav/clamd.ctl' }).privacy.clamd).toEqual({
        address: { kind: 'unix', path: '/run/clamav/clamd.ctl' },
        timeoutMs: 30_000,
        required: true,
        alertAfterMs: 600_000,
      });
      expect(loadConfig({ CLAMD_URL: 'tcp://clamav:3310', CLAMD_REQUIRED: 'false' }).privacy.clamd?.required).toBe(false);
      expect(() => loadConfig({ CLAMD_URL: 'clamav:3310' })).toThrow(/CLAMD_URL: must be tcp:\/\/host:port or unix:/);
    });

    it('serves an MTA-STS policy only with a mode and its MX names', () => {
      expect(loadConfig({ MTA_STS_MODE: 'enforce', MTA_STS_MX: 'MX1.intake.example, *.mx.intake.example' }).privacy.mtaSts).toEqual({
        mode: 'enforce',
        mx: ['mx1.intake.example', '*.mx.intake.example'],
        maxAgeSeconds: 604_800,
      });
      expect(() => loadConfig({ MTA_STS_MODE: 'testing' })).toThrow(/MTA_STS_MX: required with MTA_STS_MODE/);
      expect(() => loadConfig({ MTA_STS_MX: 'mx.intake.example' })).toThrow(/MTA_STS_MX: only read with MTA_STS_MODE/);
      expect(() => loadConfig({ MTA_STS_MODE: 'enforce', MTA_STS_MX: 'mx', MTA_STS_MAX_AGE: '31557601' })).toThrow(/MTA_STS_MAX_AGE/);
    });

    it('reads one master key, a rotation of keys or a key file, never two of them', () => {
      expect(loadConfig({ RAW_STORE_KEY: KEY }).privacy.rawStoreKeys).toEqual({ keys: [KEY] });
      expect(loadConfig({ RAW_STORE_KEYS: `${KEY}, ${OTHER}` }).privacy.rawStoreKeys).toEqual({ keys: [KEY, OTHER] });
      expect(loadConfig({ RAW_STORE_KEY_FILE: '/run/secrets/raw-store-key' }).privacy.rawStoreKeys).toEqual({
        file: '/run/secrets/raw-store-key',
      });
      expect(() => loadConfig({ RAW_STORE_KEY: KEY, RAW_STORE_KEY_FILE: '/k' })).toThrow(
        /RAW_STORE_KEY_FILE, RAW_STORE_KEY: set one of them/,
      );
      expect(() => loadConfig({ RAW_STORE_KEY: 'c2hvcnQ=' })).toThrow(/RAW_STORE_KEY: entry 1 is not 32 bytes in base64/);
    });

    it('asks S3 for server-side encryption, a KMS key only with aws:kms', () => {
      expect(loadConfig({ RAW_STORE_S3_SSE: 'aws:kms', RAW_STORE_S3_KMS_KEY_ID: 'alias/raw' }).privacy.s3Sse).toEqual({
        mode: 'aws:kms',
        kmsKeyId: 'alias/raw',
      });
      expect(() => loadConfig({ RAW_STORE_S3_SSE: 'AES256', RAW_STORE_S3_KMS_KEY_ID: 'alias/raw' })).toThrow(
        /only read with RAW_STORE_S3_SSE=aws:kms/,
      );
    });
  });
});
