// The second peer: a private Postfix instance, the operating system's package (Debian's
// `postfix`), configured by bench/postfix/main.cf and master.cf with only its paths and port
// filled in. Its config, queue and data directories live under the bench's temporary directory;
// `postfix -c <dir> check` then `postfix -c <dir> start` run it beside any system instance
// (root may name any config directory; no alternate_config_directories needed). Postfix's
// master starts as root and its daemons run as the `postfix` user, so the temporary directory is
// made traversable (0711) and `postfix check` creates the queue's subdirectories with the
// owners Postfix wants (postfix; maildrop and public with group postdrop). The harness stops it
// at the end, on failure and on SIGINT/SIGTERM; an exit handler stops it when nothing else did
// (the master is a daemon: it outlives the bench otherwise).
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../src/runtime/redis.js';
import { untilListening } from './port-listening.js';
import { type PostfixConfig, readPostfixTemplates, renderPostfixConfig } from './postfix-config.js';

const POSTFIX = '/usr/sbin/postfix';
const POSTCONF = '/usr/sbin/postconf';
const MASTER = '/usr/lib/postfix/sbin/master';
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
/** Queues a message waits in before Postfix has delivered (here: discarded) it. */
const PENDING_QUEUES = ['maildrop', 'incoming', 'active', 'deferred', 'hold'];

export interface PostfixPeer {
  readonly port: number;
  readonly masterPid: number;
  readonly version: string;
  readonly config: PostfixConfig;
  /** Messages still in the queue (not yet discarded). */
  pending(): number;
  stop(): Promise<void>;
}

/** What decides whether a private Postfix can run on this machine. */
export interface PostfixFacts {
  readonly uid: number | undefined;
  /** Postfix's programs the bench runs that are not there. */
  readonly missingFiles: readonly string[];
  /** Of user postfix, group postfix and group postdrop, the ones the system does not know. */
  readonly missingAccounts: readonly string[];
}

export function postfixFacts(): PostfixFacts {
  const accounts: readonly (readonly [string, string, string])[] = [
    ['passwd', 'postfix', 'user postfix'],
    ['group', 'postfix', 'group postfix'],
    ['group', 'postdrop', 'group postdrop'],
  ];
  return {
    uid: process.getuid?.(),
    missingFiles: [POSTFIX, POSTCONF, MASTER].filter((file) => !existsSync(file)),
    missingAccounts: accounts.filter(([db, name]) => !known(db, name)).map(([, , label]) => label),
  };
}

/** Why a private Postfix cannot run (one line), or undefined when it can. */
export function postfixSkipReason(facts: PostfixFacts): string | undefined {
  if (facts.missingFiles.length > 0)
    return `Postfix is not installed (no ${facts.missingFiles.join(', ')}; Debian: apt-get install postfix)`;
  if (facts.uid !== 0) return 'the bench is not running as root (Postfix starts its master as root)';
  if (facts.missingAccounts.length > 0) return `no ${facts.missingAccounts.join(', ')} on this system (the postfix package creates them)`;
  return undefined;
}

function known(db: string, name: string): boolean {
  try {
    execFileSync('getent', [db, name], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Writes the configuration under `temp`/postfix, checks it, starts Postfix, waits for its port. */
export async function startPostfix(temp: string, logDir: string, log: (line: string) => void): Promise<PostfixPeer> {
  const home = join(temp, 'postfix');
  const configDir = join(home, 'etc');
  const queueDirectory = join(home, 'queue');
  mkdirSync(configDir, { recursive: true });
  mkdirSync(queueDirectory, { recursive: true });
  chmodSync(temp, 0o711); // the daemons, as user postfix, reach the queue through it
  const port = await freePort();
  const config = renderPostfixConfig(
    readPostfixTemplates(),
    { queueDirectory, dataDirectory: join(home, 'data'), logFile: join(logDir, 'postfix.log'), logDirectory: logDir },
    port,
  );
  writeFileSync(join(configDir, 'main.cf'), config.mainCf);
  writeFileSync(join(configDir, 'master.cf'), config.masterCf);

  const postfix = (command: string) => run(POSTFIX, ['-c', configDir, command]);
  // The bench's exit, however it comes (the harness exits on SIGINT and SIGTERM once it has
  // stopped everything), stops this instance if nothing else has.
  const stopNow = (): void => stopSync(configDir);
  process.once('exit', stopNow);
  try {
    await postfix('check');
    await postfix('start');
    const masterPid = Number(readFileSync(join(queueDirectory, 'pid', 'master.pid'), 'latin1').trim());
    if (!Number.isInteger(masterPid) || masterPid <= 0) throw new Error(`postfix: no master pid in ${queueDirectory}/pid/master.pid`);
    await untilListening(port, START_TIMEOUT_MS, 'Postfix');
    const version = (await run(POSTCONF, ['-c', configDir, '-h', 'mail_version'])).trim();
    log(`Postfix ${version} listening on 127.0.0.1:${port} (config ${configDir})`);
    return {
      port,
      masterPid,
      version,
      config,
      pending: () => PENDING_QUEUES.reduce((n, queue) => n + countFiles(join(queueDirectory, queue)), 0),
      stop: async () => {
        await postfix('stop').catch(() => {});
        if (!(await gone(masterPid, STOP_TIMEOUT_MS))) {
          await postfix('abort').catch(() => {});
          if (alive(masterPid)) process.kill(masterPid, 'SIGKILL');
        }
        process.off('exit', stopNow);
      },
    };
  } catch (err) {
    stopNow();
    process.off('exit', stopNow);
    throw err;
  }
}

async function run(file: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(file, args, { timeout: START_TIMEOUT_MS });
    return stdout;
  } catch (err) {
    const stderr = typeof err === 'object' && err !== null && 'stderr' in err ? String(err.stderr).trim() : '';
    throw new Error(`${file} ${args.join(' ')} failed${stderr === '' ? '' : `: ${stderr}`}`);
  }
}

/** `postfix stop` synchronously, for exit and signal handlers; a stopped instance is no error. */
function stopSync(configDir: string): void {
  try {
    execFileSync(POSTFIX, ['-c', configDir, 'stop'], { stdio: 'ignore', timeout: 10_000 });
  } catch {
    // not running (any more)
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return true;
}

/** Files anywhere under `dir` (Postfix hashes deferred and hold into subdirectories). */
function countFiles(dir: string): number {
  try {
    return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile()).length;
  } catch {
    return 0;
  }
}
