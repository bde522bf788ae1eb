// `letter-intake start` reloads its sender directory and its STARTTLS pair on SIGHUP without a
// restart: a session open across the reload goes on, and sees the new sender; a new session gets
// the new certificate; a reload that fails validation keeps what is loaded; /readyz shows it.
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { FIXTURE_DIR, PROCESSING_ADDRESS, testEnv } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { SmtpClient } from '../helpers/smtp-client.js';

const dir = mkdtempSync(join(tmpdir(), 'letter-intake-reload-'));
const prefix = randomPrefix();
let proc: RoleProcess | undefined;

afterAll(async () => {
  await proc?.stop();
  const redis = connectTestRedis();
  await dropPrefix(redis, prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

const NEW_SENDER = {
  senderId: '0b7e2a5c-6d1f-4e8a-9c3b-2a1d0e9f8c7b',
  companyNameEn: 'Acme Billing',
  addresses: ['billing@acme.example'],
  apiClientId: 'acme-billing-client',
  apiClientSecret: 'acme-billing-secret',
};

/** The SHA-256 fingerprint of the certificate a new session's STARTTLS presents. */
async function starttlsFingerprint(port: number): Promise<string> {
  const socket = connectTcp({ host: '127.0.0.1', port });
  const readUntil = (pattern: RegExp): Promise<void> =>
    new Promise((done, fail) => {
      let seen = '';
      const onData = (chunk: Buffer): void => {
        seen += chunk.toString('utf8');
        if (pattern.test(seen)) {
          socket.off('data', onData);
          done();
        }
      };
      socket.on('data', onData);
      socket.once('error', fail);
    });
  await readUntil(/^220 /m);
  socket.write('EHLO mta.acme.example\r\n');
  await readUntil(/^250 /m);
  socket.write('STARTTLS\r\n');
  await readUntil(/^220 /m);
  const secure = await new Promise<ReturnType<typeof connectTls>>((done, fail) => {
    const s = connectTls({ socket: socket as Socket, rejectUnauthorized: false, servername: 'mx.intake.example' }, () => done(s));
    s.once('error', fail);
  });
  const fingerprint = secure.getPeerX509Certificate()?.fingerprint256 ?? '';
  secure.destroy();
  return fingerprint;
}

const fingerprintOf = (file: string): string => new X509Certificate(readFileSync(file)).fingerprint256;

describe('reloading without a restart', () => {
  it('adds a sender and rotates the certificate on SIGHUP while a session stays open; a bad reload keeps both', async () => {
    const sendersFile = join(dir, 'senders.json');
    copyFileSync(join(FIXTURE_DIR, 'senders.json'), sendersFile);
    const first = selfSignedCertificate(dir, 'first', 'mx.intake.example');
    const second = selfSignedCertificate(dir, 'second', 'mx.intake.example');
    const keyFile = join(dir, 'tls.key');
    const certFile = join(dir, 'tls.crt');
    copyFileSync(first.key, keyFile);
    copyFileSync(first.cert, certFile);
    proc = await startRole(
      'start',
      testEnv(prefix, {
        DATA_DIR: dir,
        OPS_HTTP_PORT: '0',
        PORTAL_PORT: '0',
        SANDBOX_PORT: '0',
        SENDERS_FILE: sendersFile,
        TLS_KEY_FILE: keyFile,
        TLS_CERT_FILE: certFile,
      }),
    );
    const ready = await proc.waitForLog((l) => l.event === 'start.ready');
    const port = Number(ready.smtpPort);
    const readyz = async () =>
      (await (await fetch(`${String(ready.ops)}/readyz`)).json()) as { loaded: Record<string, { version: string }> };
    const before = (await readyz()).loaded;
    expect(await starttlsFingerprint(port)).toBe(fingerprintOf(first.cert));

    const { client: open } = await SmtpClient.open(port);
    await open.command('EHLO mta.acme.example');
    const refused = await open.send({
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title: 'Before the reload', from: 'Acme Billing <billing@acme.example>' }),
    });
    expect(refused.data?.code).toBe(550);

    const directory = JSON.parse(readFileSync(sendersFile, 'utf8')) as { senders: unknown[] };
    writeFileSync(sendersFile, JSON.stringify({ senders: [...directory.senders, NEW_SENDER] }));
    copyFileSync(second.key, keyFile);
    copyFileSync(second.cert, certFile);
    proc.child.kill('SIGHUP');
    await proc.waitForLog((l) => l.event === 'reload.done' && l.what === 'tls');
    await proc.waitForLog((l) => l.event === 'reload.done' && l.what === 'smtp-senders');

    const accepted = await open.send({
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await signedLetter({ title: 'After the reload', from: 'Acme Billing <billing@acme.example>' }),
    });
    expect(accepted.data?.code).toBe(250); // the same session, the new sender
    await open.quit();
    expect(await starttlsFingerprint(port)).toBe(fingerprintOf(second.cert));
    const after = (await readyz()).loaded;
    expect(after.tls?.version).not.toBe(before.tls?.version);
    expect(after.senders?.version).not.toBe(before.senders?.version);

    writeFileSync(sendersFile, '{ "senders": [ { "companyNameEn": "no id" } ] }');
    copyFileSync(first.key, keyFile); // the first key with the second certificate: not a pair
    proc.child.kill('SIGHUP');
    const failed = await proc.waitForLog((l) => l.event === 'reload.failed' && l.what === 'tls');
    await proc.waitForLog((l) => l.event === 'reload.failed' && l.what === 'senders');

    expect(String(failed.error)).toContain('TLS_KEY_FILE is not the key of TLS_CERT_FILE');
    expect((await readyz()).loaded).toEqual(after);
    expect(await starttlsFingerprint(port)).toBe(fingerprintOf(second.cert));
  });
});
