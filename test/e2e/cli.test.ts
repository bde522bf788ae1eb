// The `letter-intake` command as an operator meets it: compiled, in its own process.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/runtime/redis.js';
import { FIXTURE_DIR, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const prefix = randomPrefix();
let env: Record<string, string>;
let listener: RoleProcess;

beforeAll(async () => {
  env = testEnv(prefix, { SMTP_PORT: String(await freePort()), OPS_HTTP_PORT: '0' });
  listener = await startRole('smtp', env);
});
afterAll(async () => {
  await listener.stop();
  const redis = connectTestRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

const eml = (name: string) => join(FIXTURE_DIR, 'eml', name);

describe('letter-intake send and status', () => {
  it('sends a fixture, prints the 250 reply and exits 0; status prints its record', async () => {
    const sent = await runCommand(['send', eml('pdf-attachment.eml')], env);
    expect(sent.code).toBe(0);
    const id = /queued as (in[0-9a-f]{24})/.exec(sent.text)?.[1] ?? '';
    expect(sent.text).toMatch(/^250 2\.0\.0 queued as in[0-9a-f]{24}$/m);

    const status = await runCommand(['status', id], env);
    expect(status.code).toBe(0);
    expect(status.text).toContain(`intake ${id}: queued`);
    expect(status.text).toMatch(/^ {2}subject {3}Annual statement 2026$/m);
    expect(status.text).toMatch(/^timeline \(UTC\)\n {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} {2}received$/m);
    expect(status.text).not.toMatch(/"receivedAt": \d+/); // no epoch milliseconds for a person to decode

    const json = await runCommand(['status', id, '--json'], env);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.text)).toMatchObject({ intakeId: id, state: 'queued', subject: 'Annual statement 2026' });
  });

  it('prints a refusal and exits 1', async () => {
    const sent = await runCommand(['send', eml('spf-fail.eml')], env);
    expect(sent.code).toBe(1);
    expect(sent.text).toMatch(/550 5\.7\.1 .*SPF fail for fail\.acme\.example/);
  });

  it('refuses a --port that is not a port number instead of trying another port', async () => {
    const sent = await runCommand(['send', eml('pdf-attachment.eml'), '--port', 'abc'], env);
    expect(sent.code).toBe(64);
    expect(sent.text).toContain('--port must be a port number from 1 to 65535, not "abc"');
    expect(sent.text).not.toContain('587');
  });

  it('says a message file is missing, without a stack trace', async () => {
    const sent = await runCommand(['send', 'missing.eml'], env);
    expect(sent.code).toBe(66);
    expect(sent.text.trim()).toBe('letter-intake send: missing.eml: no such file');
  });

  it('says there is no such intake', async () => {
    const status = await runCommand(['status', 'in000000000000000000000000'], env);
    expect(status.code).toBe(1);
    expect(status.text).toContain('no intake in000000000000000000000000');
  });
});

describe('start-up fails fast with a clear message', () => {
  it.each([
    ['a bad value', { SMTP_PORT: 'twenty-five' }, 78, 'SMTP_PORT'],
    [
      'an unreadable sender directory',
      { SENDERS_FILE: '/nonexistent/senders.json', SENDER_API_URL: 'http://127.0.0.1:9' },
      78,
      'SENDERS_FILE /nonexistent/senders.json',
    ],
    ['a plain-http Sender API that is not loopback', { SENDER_API_URL: 'http://api.example' }, 78, 'SENDER_API_URL'],
    ['unreachable Redis', { REDIS_URL: 'redis://127.0.0.1:9', REDIS_START_TIMEOUT_MS: '300' }, 69, 'REDIS_URL'],
  ])('%s', async (_what, extra, code, fragment) => {
    const role = 'SENDER_API_URL' in extra ? 'worker' : 'smtp';
    const started = Date.now();
    const result = await runCommand([role], { ...env, ...extra });
    expect(result.code).toBe(code);
    expect(result.text).toContain(fragment);
    expect(result.text).not.toMatch(/\n\s+at /); // a message, not a stack trace
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('says a command is unknown, then prints the usage', async () => {
    const result = await runCommand(['frobnicate'], env);
    expect(result.code).toBe(64);
    expect(result.text).toMatch(/^letter-intake: unknown command "frobnicate"\n/);
    expect(result.text).toContain('usage: letter-intake <command>');
  });

  it('says an option is unknown, without a stack trace', async () => {
    const result = await runCommand(['status', 'in000000000000000000000000', '--jsn'], env);
    expect(result.code).toBe(64);
    expect(result.text).toMatch(/^letter-intake: Unknown option '--jsn'/);
    expect(result.text).not.toMatch(/\n\s+at /);
  });

  it('status with Redis away asks whether `npm start` runs, in one line', async () => {
    const result = await runCommand(['status', 'in000000000000000000000000'], {
      ...env,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
    });
    expect(result.code).toBe(69);
    expect(result.text).toContain('is `npm start` running?');
    expect(result.text).not.toContain('[ioredis]');
    expect(result.text.trim().split('\n')).toHaveLength(1);
  });
});
