import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KNOWN_VARIABLES } from '../../src/config.js';
import { unknownVariablesIn } from '../../src/config-unknown.js';
import { nearestName } from '../../src/nearest-name.js';
import { parseSenderDirectory } from '../../src/senders/directory.js';
import { reloadableSenderDirectory } from '../../src/senders/live-directory.js';
import { secretVariablesNamedIn } from '../../src/senders/secret-variables.js';

describe('variables with one of the gateway prefixes that the configuration does not know', () => {
  it('are named, each with the nearest known name', () => {
    const found = unknownVariablesIn({ SMTP_COLOUR: 'blue', SMTP_HOSTNAM: 'mx.example', SMTP_PORT: '25' });
    expect(found.map((f) => f.name)).toEqual(['SMTP_COLOUR', 'SMTP_HOSTNAM']);
    expect(found.find((f) => f.name === 'SMTP_HOSTNAM')?.nearest).toBe('SMTP_HOSTNAME');
    for (const f of found) expect(KNOWN_VARIABLES).toContain(f.nearest);
  });

  it.each([
    'RAW_STORE_COLOUR',
    'SENDER_API_COLOUR',
    'NOTICE_COLOUR',
    'OPS_HTTP_COLOUR',
    'SANDBOX_COLOUR',
    'PORTAL_COLOUR',
    'SELFTEST_COLOUR',
    'CLAMD_COLOUR',
    'MTA_STS_COLOUR',
    'REDIS_COLOUR',
  ])('covers %s', (name) => {
    expect(unknownVariablesIn({ [name]: 'x' }).map((f) => f.name)).toEqual([name]);
  });

  it('leaves alone what Redis images and the compose file export, other programs, and empty values', () => {
    expect(
      unknownVariablesIn({
        REDIS_VERSION: '7.4.1',
        REDIS_DOWNLOAD_URL: 'http://download.redis.io/x.tar.gz',
        REDIS_DOWNLOAD_SHA: 'abc',
        SMTP_PUBLISH_PORT: '25',
        OPS_HTTP_PUBLISH_PORT: '8080',
        SANDBOX_PUBLISH_PORT: '8090',
        COLOUR: 'blue',
        PATH: '/usr/bin',
        SMTP_COLOUR: '',
      }),
    ).toEqual([]);
  });

  it('knows every variable of the schema, however many are added', () => {
    expect(KNOWN_VARIABLES).toContain('SMTP_PORT');
    expect(KNOWN_VARIABLES).toContain('RAW_STORE_URL');
    expect(unknownVariablesIn(Object.fromEntries(KNOWN_VARIABLES.map((name) => [name, 'x'])))).toEqual([]);
  });

  it('leaves alone the variables SENDERS_FILE names for its client secrets, and only those', () => {
    const dir = mkdtempSync(join(tmpdir(), 'secret-names-'));
    try {
      const file = join(dir, 'senders.json');
      writeFileSync(file, JSON.stringify({ senders: [{ apiClientSecretEnv: 'SENDER_API_SECRET_ACME' }, { apiClientSecret: 'inline' }] }));
      const env = { SENDER_API_SECRET_ACME: 's3cret', SENDER_API_SECRET_BETA: 's3cret' };
      expect(unknownVariablesIn(env, secretVariablesNamedIn(file)).map((f) => f.name)).toEqual(['SENDER_API_SECRET_BETA']);
      expect(secretVariablesNamedIn(join(dir, 'missing.json'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the nearest name by edits', () => {
    expect(nearestName('SENDER_API_TIMEOUT', ['SENDER_API_URL', 'SENDER_API_TIMEOUT_MS'])).toBe('SENDER_API_TIMEOUT_MS');
  });
});

describe('a sender entry with a field the directory does not know', () => {
  const acme = {
    senderId: '8d3c6f1e-2f7a-4c1e-9a57-0f1b2c3d4e5f',
    companyNameEn: 'Acme',
    addresses: ['letters@acme.example'],
    apiClientId: 'acme',
    apiClientSecret: 'a',
  };

  it('is refused, naming the field and the nearest known one', () => {
    expect(() => parseSenderDirectory({ senders: [{ ...acme, colour: 'blue' }] }, {})).toThrow(/senders\.0: unknown field "colour"/);
    expect(() => parseSenderDirectory({ senders: [{ ...acme, allowPdfForm: true }] }, {})).toThrow(
      /unknown field "allowPdfForm" \(the nearest known field is "allowPdfForms"\)/,
    );
  });

  it('is refused by a reload, which keeps the loaded directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'unknown-field-'));
    try {
      const file = join(dir, 'senders.json');
      writeFileSync(file, JSON.stringify({ senders: [acme] }));
      const directory = reloadableSenderDirectory(file, {}, () => 0);
      const before = directory.loaded();
      writeFileSync(file, JSON.stringify({ senders: [{ ...acme, companyNameEn: 'Acme Two', colour: 'blue' }] }));
      const outcome = directory.reload();
      expect(outcome).toMatchObject({ kind: 'failed', keptVersion: before.version });
      expect(outcome.kind === 'failed' ? outcome.error : '').toContain('unknown field "colour"');
      expect(directory.current().senders[0]?.companyNameEn).toBe('Acme');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
