// A private clamd (Debian's clamav-daemon) for the malware-scan suite: its own config, Unix
// socket, TCP port on loopback and a DatabaseDirectory holding one signature of ours (an .ndb
// line), so it starts offline and flags exactly the marker the tests put in a PDF. It can be
// stopped and started again on the same socket and port.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/runtime/redis.js';
import { pingClamd } from '../../src/scan/clamd-client.js';

/** The bytes the test signature flags, and the name clamd reports (an .ndb signature is "UNOFFICIAL"). */
export const MALWARE_MARKER = 'LETTER-INTAKE-TEST-MALWARE-7f3a';
export const SIGNATURE_NAME = 'LetterIntake.Test.Marker.UNOFFICIAL';

export interface Clamd {
  readonly socketUrl: string;
  readonly tcpUrl: string;
  readonly running: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

export async function startClamd(): Promise<Clamd> {
  const dir = mkdtempSync(join(tmpdir(), 'letter-intake-clamd-'));
  const db = join(dir, 'db');
  mkdirSync(db);
  // RFC-less format (clamav's signatures.md): Name:TargetType:Offset:HexSignature; type 0 is any file.
  writeFileSync(join(db, 'letter-intake-test.ndb'), `LetterIntake.Test.Marker:0:*:${Buffer.from(MALWARE_MARKER).toString('hex')}\n`);
  const port = await freePort();
  const socket = join(dir, 'clamd.sock');
  const conf = join(dir, 'clamd.conf');
  writeFileSync(
    conf,
    [
      'Foreground yes',
      `DatabaseDirectory ${db}`,
      `LocalSocket ${socket}`,
      `TCPSocket ${port}`,
      'TCPAddr 127.0.0.1',
      `LogFile ${join(dir, 'clamd.log')}`,
      'StreamMaxLength 20M',
      'SelfCheck 0',
      '',
    ].join('\n'),
  );
  let child: ChildProcess | undefined;
  const start = async () => {
    const proc = spawn('clamd', ['-c', conf], { stdio: 'ignore' });
    child = proc;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`clamd exited with ${proc.exitCode} (see ${join(dir, 'clamd.log')})`);
      try {
        await pingClamd({ kind: 'unix', path: socket }, 1000);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  const stop = async () => {
    const proc = child;
    child = undefined;
    if (proc === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((ok) => {
      proc.once('exit', () => ok());
      proc.kill('SIGKILL');
    });
    rmSync(socket, { force: true });
  };
  await start();
  return {
    socketUrl: `unix:${socket}`,
    tcpUrl: `tcp://127.0.0.1:${port}`,
    get running() {
      return child !== undefined && child.exitCode === null;
    },
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
