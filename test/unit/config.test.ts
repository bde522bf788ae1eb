import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('gives documented defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config.maxMessageBytes).toBe(15 * 1024 * 1024);
    expect(config.maxPdfBytes).toBe(10 * 1024 * 1024);
    expect(config.retentionMs).toBe(7 * 24 * 3600 * 1000);
    expect(config.smtp.port).toBe(2525);
    expect(config.smtp.tls).toBeUndefined();
    expect(Object.isFrozen(config.smtp)).toBe(true);
  });

  it('reads processing addresses comma-separated, trimmed and lower-cased', () => {
    expect(loadConfig({ INBOUND_ADDRESSES: ' Letters@Intake.example, b@intake.example ' }).inboundAddresses).toEqual(['letters@intake.example', 'b@intake.example']);
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
  ])('names %s when its value %j is bad', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(variable);
  });

  it('keeps raw mail under DATA_DIR/raw unless RAW_STORE_URL says otherwise', () => {
    expect(loadConfig({ DATA_DIR: '/srv/intake' }).rawStore.location).toEqual({ kind: 'file', dir: '/srv/intake/raw' });
    expect(loadConfig({ RAW_STORE_URL: 's3://letters-raw/intake' }).rawStore.location).toEqual({ kind: 's3', bucket: 'letters-raw', prefix: 'intake/' });
  });

  it('wants both TLS files or neither', () => {
    expect(() => loadConfig({ TLS_KEY_FILE: '/k' })).toThrow(/TLS_KEY_FILE, TLS_CERT_FILE/);
  });
});
