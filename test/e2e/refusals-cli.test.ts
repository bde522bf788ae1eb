// `letter-intake refusals` and `status <Message-ID>` as an operator meets them: compiled, in
// their own process, against a listener that refused a burst of unsigned messages.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/runtime/redis.js';
import { fixture, PROCESSING_ADDRESS, REPO, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, runCommand, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { SmtpClient } from '../helpers/smtp-client.js';

const prefix = randomPrefix();
let env: Record<string, string>;
let listener: RoleProcess;
const BURST = 8;

/** Runs the command with standard output and standard error apart. */
async function separate(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [resolve(REPO, 'dist/cli.js'), ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const code = await new Promise<number | null>((done) => child.once('close', done));
  return { code, stdout, stderr };
}

beforeAll(async () => {
  const port = await freePort();
  env = testEnv(prefix, { SMTP_PORT: String(port), OPS_HTTP_PORT: '0' });
  listener = await startRole('smtp', env);
  const { client } = await SmtpClient.open(port);
  for (let i = 0; i < BURST; i += 1) {
    const raw = Buffer.from(
      fixture('unsigned.eml')
        .toString('latin1')
        .replace(/^Message-ID: .*$/im, `Message-ID: <cli-burst-${i}@acme.example>`),
      'latin1',
    );
    await client.send({ from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw });
    await client.command('RSET');
  }
  await client.quit();
}, 60_000);

afterAll(async () => {
  await listener.stop();
  const redis = connectTestRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
});

describe('letter-intake refusals', () => {
  it('--json prints one object alone on standard output: every refusal counted, the samples apart', async () => {
    const run = await separate(['refusals', '--json', '--from', 'acme.example']);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { counts: { count: number; sample: { messageId: string } }[]; samples: { messageId: string }[] };
    expect(Object.keys(body)).toEqual(['counts', 'samples']);
    expect(body.counts).toEqual([
      {
        network: '127.0.0.0/24',
        check: 'DKIM',
        fromDomain: 'acme.example',
        reply: '550 5.7.1',
        count: BURST,
        firstSeen: expect.any(Number),
        lastSeen: expect.any(Number),
        sample: expect.objectContaining({ messageId: '<cli-burst-0@acme.example>' }),
      },
    ]);
    const ids = body.samples.map((s) => s.messageId);
    expect(ids).toContain('<cli-burst-0@acme.example>');
    expect(ids).toContain(`<cli-burst-${BURST - 1}@acme.example>`);
    expect(ids.length).toBeLessThan(BURST); // the middle of the burst is counted, not sampled
    expect((await separate(['refusals', '--json', '--from', 'other.example'])).stdout).toBe('{"counts":[],"samples":[]}\n');
  });

  it('prints the counts for a person, and refuses a --since that is not a time', async () => {
    const run = await runCommand(['refusals'], env);
    expect(run.code).toBe(0);
    expect(run.text).toMatch(new RegExp(`^ +${BURST} {2}failed DKIM for acme\\.example from 127\\.0\\.0\\.0/24 \\(550 5\\.7\\.1\\)`, 'm'));
    const bad = await runCommand(['refusals', '--since', 'yesterday-ish'], env);
    expect(bad.code).toBe(64);
    expect(bad.text).toContain('--since: not a time');
  });

  it('status finds a sampled refusal by Message-ID, and says when one was counted but not sampled', async () => {
    const found = await runCommand(['status', `<cli-burst-${BURST - 1}@acme.example>`], env);
    expect(found.code).toBe(0);
    expect(found.text).toContain('refused in the SMTP session (never an intake): 1');
    expect(found.text).toMatch(/failed DKIM {2}From Acme Utilities <letters@acme\.example> \(claimed\)/);
    const middle = await runCommand(['status', '<cli-burst-6@acme.example>'], env);
    expect(middle.code).toBe(1);
    expect(middle.text).toContain('no intake or sampled refusal matches <cli-burst-6@acme.example>');
    expect(middle.text).toMatch(/\d of 8 refusals were counted but not sampled/);
  });
});
