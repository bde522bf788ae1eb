// `letter-intake start` reloads its sender directory and its STARTTLS pair on SIGHUP without a
// restart: a session open across the reload goes on, and sees the new sender, whose mail becomes
// a letter; a new session gets the new certificate. A reload that fails validation is reported
// (logged with the version kept) and keeps what is loaded: the senders it had still get their
// letters, and the bad file's own sender is refused. A listener and a worker that run as
// separate processes each take a senders file changed without a signal (the 2 s poll).
import { createHash, X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { loadSenderDirectory } from '../../src/senders/directory.js';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { FIXTURE_DIR, PROCESSING_ADDRESS, testEnv, testRawDir } from '../helpers/gateway.js';
import { type RoleProcess, startRole } from '../helpers/processes.js';
import { connectTestRedis, dropPrefix, randomPrefix } from '../helpers/redis.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { SmtpClient, sendOnce } from '../helpers/smtp-client.js';

const dir = mkdtempSync(join(tmpdir(), 'letter-intake-reload-'));
const prefixes: string[] = [];
const processes: RoleProcess[] = [];
let sandbox: RunningSandbox | undefined;

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await sandbox?.close();
  const redis = connectTestRedis();
  for (const prefix of prefixes) {
    await dropPrefix(redis, prefix);
    rmSync(testRawDir(prefix), { recursive: true, force: true });
  }
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

/** A sender whose client id is Acme Utilities' own: a directory that adds it is refused whole. */
const CLASHING_SENDER = {
  senderId: '5d2e8f1a-3b4c-4d5e-8f6a-7b8c9d0e1f2a',
  companyNameEn: 'Acme Ledger',
  addresses: ['ledger@acme.example'],
  apiClientId: 'acme-client',
  apiClientSecret: 'acme-ledger-secret',
};

/** The fixture directory (Acme Utilities, Globex) with `added` senders after it, as JSON. */
function directoryWith(...added: readonly object[]): string {
  const fixtures = JSON.parse(readFileSync(join(FIXTURE_DIR, 'senders.json'), 'utf8')) as { senders: unknown[] };
  return JSON.stringify({ senders: [...fixtures.senders, ...added] }, null, 2);
}

/** Replaces a file as an editor or a deployment tool does: written aside, renamed into place. */
function replaceFile(file: string, text: string): void {
  writeFileSync(`${file}.new`, text);
  renameSync(`${file}.new`, file);
}

/** The version /readyz shows for a file with these bytes (support/reloadable.ts). */
const versionOfText = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

/** A poll comes every 2 s (runtime/reloads.ts): this bound is several of them. */
const POLLS_MS = 15_000;

/** Waits for a log line written after this call that satisfies `match` (an earlier reload's lines do not count). */
function nextLog(proc: RoleProcess, match: (line: Record<string, unknown>) => boolean): () => Promise<Record<string, unknown>> {
  const since = proc.logs.length;
  return () => proc.waitForLog((line) => proc.logs.indexOf(line) >= since && match(line), POLLS_MS);
}

interface SandboxLetter {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly senderId: string;
}

/** The letters the Sender API holds with this title (the sandbox's operator listing). */
async function lettersTitled(apiUrl: string, title: string): Promise<SandboxLetter[]> {
  const { items } = (await (await fetch(`${apiUrl}/sandbox/letters`)).json()) as { items: SandboxLetter[] };
  return items.filter((l) => l.title === title);
}

/** Waits until the message titled `title` is one PendingApproval letter, and returns its sender. */
async function oneLetterOf(apiUrl: string, title: string): Promise<string | undefined> {
  await vi.waitFor(async () => expect((await lettersTitled(apiUrl, title)).map((l) => l.status)).toEqual(['PendingApproval']), {
    timeout: 20_000,
    interval: 100,
  });
  return (await lettersTitled(apiUrl, title))[0]?.senderId;
}

const letterFrom = async (address: string, company: string, title: string) => signedLetter({ title, from: `${company} <${address}>` });

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
  it('adds a sender and rotates the certificate on SIGHUP while a session stays open, and the new sender gets its letter', async () => {
    const prefix = randomPrefix();
    prefixes.push(prefix);
    const sendersFile = join(dir, 'senders.json');
    replaceFile(sendersFile, directoryWith());
    const first = selfSignedCertificate(dir, 'first', 'mx.intake.example');
    const second = selfSignedCertificate(dir, 'second', 'mx.intake.example');
    const keyFile = join(dir, 'tls.key');
    const certFile = join(dir, 'tls.crt');
    copyFileSync(first.key, keyFile);
    copyFileSync(first.cert, certFile);
    const proc = await startRole(
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
    processes.push(proc);
    const ready = await proc.waitForLog((l) => l.event === 'start.ready');
    const port = Number(ready.smtpPort);
    const apiUrl = String(ready.senderApi);
    const readyz = async () =>
      (await (await fetch(`${String(ready.ops)}/readyz`)).json()) as { loaded: Record<string, { version: string }> };
    const before = (await readyz()).loaded;
    expect(await starttlsFingerprint(port)).toBe(fingerprintOf(first.cert));

    const { client: open } = await SmtpClient.open(port);
    await open.command('EHLO mta.acme.example');
    const refused = await open.send({
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await letterFrom('billing@acme.example', 'Acme Billing', 'Before the reload'),
    });
    expect(refused.data?.code).toBe(550);

    const tlsDone = nextLog(proc, (l) => l.event === 'reload.done' && l.what === 'tls');
    const listenerDone = nextLog(proc, (l) => l.event === 'reload.done' && l.what === 'smtp-senders');
    const workerDone = nextLog(proc, (l) => l.event === 'reload.done' && l.what === 'senders');
    replaceFile(sendersFile, directoryWith(NEW_SENDER));
    copyFileSync(second.key, keyFile);
    copyFileSync(second.cert, certFile);
    proc.child.kill('SIGHUP');
    await Promise.all([tlsDone(), listenerDone(), workerDone()]);

    const accepted = await open.send({
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await letterFrom('billing@acme.example', 'Acme Billing', 'After the reload'),
    });
    expect(accepted.data?.code).toBe(250); // the same session, the new sender
    await open.quit();
    expect(await oneLetterOf(apiUrl, 'After the reload')).toBe(NEW_SENDER.senderId);
    expect(await lettersTitled(apiUrl, 'Before the reload')).toEqual([]);
    expect(await starttlsFingerprint(port)).toBe(fingerprintOf(second.cert));
    const after = (await readyz()).loaded;
    expect(after.tls?.version).not.toBe(before.tls?.version);
    expect(after.senders?.version).not.toBe(before.senders?.version);

    // A bad reload: a directory whose new sender clashes with an old one, a key that is not the certificate's.
    const tlsFailed = nextLog(proc, (l) => l.event === 'reload.failed' && l.what === 'tls');
    const listenerFailed = nextLog(proc, (l) => l.event === 'reload.failed' && l.what === 'smtp-senders');
    const workerFailed = nextLog(proc, (l) => l.event === 'reload.failed' && l.what === 'senders');
    const badDirectory = directoryWith(NEW_SENDER, CLASHING_SENDER);
    replaceFile(sendersFile, badDirectory);
    copyFileSync(first.key, keyFile); // the first key with the second certificate: not a pair
    proc.child.kill('SIGHUP');
    const failed = await Promise.all([tlsFailed(), listenerFailed(), workerFailed()]);

    expect(String(failed[0].error)).toContain('TLS_KEY_FILE is not the key of TLS_CERT_FILE');
    for (const line of failed.slice(1)) {
      expect(line.level).toBe(50);
      expect(String(line.error)).toContain('apiClientId acme-client appears twice');
      expect(line.keptVersion).toBe(after.senders?.version);
    }
    const kept = (await readyz()).loaded;
    expect(kept).toEqual(after);
    expect(kept.senders?.version).not.toBe(versionOfText(badDirectory)); // what doctor compares: the file on disk is not loaded
    expect(await starttlsFingerprint(port)).toBe(fingerprintOf(second.cert));

    const stillBilling = await sendOnce(port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await letterFrom('billing@acme.example', 'Acme Billing', 'After the bad reload'),
    });
    expect(stillBilling.data?.code).toBe(250);
    expect(await oneLetterOf(apiUrl, 'After the bad reload')).toBe(NEW_SENDER.senderId);
    const ledger = await sendOnce(port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await letterFrom('ledger@acme.example', 'Acme Ledger', 'From the bad file'),
    });
    expect(ledger.data?.code).toBe(550);
    expect(ledger.data?.text).toContain('SenderNotRegistered');
  }, 90_000);

  it('has a listener and a worker in separate processes each take a senders file changed without a signal', async () => {
    const prefix = randomPrefix();
    prefixes.push(prefix);
    const sendersFile = join(dir, 'roles-senders.json');
    replaceFile(sendersFile, directoryWith());
    // The Sender API is another party: it knows Acme Billing before the gateway does.
    const apiSenders = join(dir, 'api-senders.json');
    replaceFile(apiSenders, directoryWith(NEW_SENDER));
    sandbox = await startSandbox({
      directory: loadSenderDirectory(apiSenders, {}),
      clock: Date.now,
      logger: createLogger({ level: 'silent' }),
      host: '127.0.0.1',
      port: 0,
    });
    const env = testEnv(prefix, { SENDERS_FILE: sendersFile, SENDER_API_URL: sandbox.url, OPS_HTTP_PORT: '0' });
    const listener = await startRole('smtp', env);
    processes.push(listener);
    const worker = await startRole('worker', env);
    processes.push(worker);
    const port = Number((await listener.waitForLog((l) => l.event === 'smtp.listening')).port);

    const refused = await sendOnce(port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await letterFrom('billing@acme.example', 'Acme Billing', 'Before the file changed'),
    });
    expect(refused.data?.code).toBe(550);

    const listenerDone = nextLog(listener, (l) => l.event === 'reload.done' && l.what === 'smtp-senders' && l.trigger === 'file-change');
    const workerDone = nextLog(worker, (l) => l.event === 'reload.done' && l.what === 'senders' && l.trigger === 'file-change');
    replaceFile(sendersFile, directoryWith(NEW_SENDER)); // no signal: the poll finds it
    await Promise.all([listenerDone(), workerDone()]);

    const accepted = await sendOnce(port, {
      from: 'bounce@acme.example',
      to: [PROCESSING_ADDRESS],
      raw: await letterFrom('billing@acme.example', 'Acme Billing', 'After the file changed'),
    });
    expect(accepted.data?.code).toBe(250); // the listener took the change
    // and so did the worker: with its old directory it would reject the message as SenderNotRegistered
    expect(await oneLetterOf(sandbox.url, 'After the file changed')).toBe(NEW_SENDER.senderId);
  }, 90_000);
});
