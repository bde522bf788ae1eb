// `letter-intake send --pdf`: a letter of one's own, composed from the demo sender and signed
// with the demo key, passes authentication and the rules as a real sender's letter does.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf } from '../../fixtures/pdf.js';
import { freePort } from '../../src/runtime/redis.js';
import { testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';

const prefix = randomPrefix();
const dir = mkdtempSync(join(tmpdir(), 'send-pdf-'));
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

describe('letter-intake send --pdf', () => {
  it('composes, signs and sends a letter with the PDF; the listener accepts it and status shows it', async () => {
    const file = join(dir, 'my-invoice.pdf');
    writeFileSync(file, buildPdf('My own invoice'));
    const sent = await runCommand(['send', '--pdf', file, '--subject', 'Invoice 42', '--body', 'Hello from me'], env);
    expect(sent.text).toMatch(/^250 2\.0\.0 queued as in[0-9a-f]{24}$/m);
    expect(sent.code).toBe(0);
    const id = /queued as (in[0-9a-f]{24})/.exec(sent.text)?.[1] ?? '';
    const status = await runCommand(['status', id], env);
    expect(status.text).toMatch(/^ {2}from {6}letters@acme\.example /m);
    expect(status.text).toMatch(/^ {2}subject {3}Invoice 42$/m);
    expect(status.text).toMatch(/^ {2}dkim +pass: DKIM pass for d=acme\.example s=rsa2048, aligned/m);
    expect(status.text).toMatch(/^ {2}spf +pass/m);
  });

  it('refuses a file that is not a PDF before sending anything', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'just text');
    const sent = await runCommand(['send', '--pdf', file], env);
    expect(sent.code).toBe(66);
    expect(sent.text).toContain('not a PDF (no %PDF- header)');
  });
});
