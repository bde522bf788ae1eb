// A real Exim (Debian's exim4-daemon-heavy) for relay tests, without installing it: the package
// and the two libraries the machine may lack are fetched with `apt-get download` and unpacked
// with `dpkg -x` into a temporary directory, and Exim runs from there with its own config, spool
// and logs, so the machine's own MTA is left alone. Exim insists on its compiled-in user
// "Debian-exim": nss_wrapper (also unpacked) gives it one from a passwd file of ours, as
// nobody's uid. Where any of this fails (no apt, no network, not Debian) fetchExim says why.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PACKAGES = ['exim4-daemon-heavy', 'libidn12', 'libspf2-2', 'libnss-wrapper'];
/** The uid and gid Exim drops to (nobody's): it refuses to run its deliveries as root. */
const EXIM_ID = 65_534;

export interface Exim {
  readonly dir: string;
  /** Relays one message through `gatewayPort` (exim -odi: delivered before it returns); resolves with Exim's exit code. */
  relay(message: Buffer, envelopeSender: string, recipient: string): Promise<number>;
  /** Exim's main log so far. */
  mainLog(): string;
  cleanup(): void;
}

/** Exim unpacked and configured to relay everything to 127.0.0.1:`gatewayPort`, or why it cannot run here. */
export function fetchExim(gatewayPort: number, helo: string): Exim | string {
  if (process.getuid?.() !== 0) return 'not root: Exim starts as root and drops to its own user';
  const dir = mkdtempSync(join(tmpdir(), 'letter-intake-exim-'));
  chmodSync(dir, 0o755);
  const fail = (why: string): string => {
    rmSync(dir, { recursive: true, force: true });
    return why;
  };
  const download = spawnSync('apt-get', ['download', ...PACKAGES], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  if (download.status !== 0)
    return fail(`apt-get download ${PACKAGES.join(' ')} failed: ${(download.stderr || String(download.error)).trim()}`);
  const root = join(dir, 'root');
  for (const deb of readdirSync(dir).filter((f) => f.endsWith('.deb'))) {
    const unpack = spawnSync('dpkg', ['-x', join(dir, deb), root], { encoding: 'utf8' });
    if (unpack.status !== 0) return fail(`dpkg -x ${deb} failed: ${unpack.stderr.trim()}`);
  }
  const binary = join(root, 'usr/sbin/exim4');
  const wrapper = join(root, 'usr/lib/x86_64-linux-gnu/libnss_wrapper.so');
  if (!existsSync(binary) || !existsSync(wrapper)) return fail(`the unpacked packages hold no ${binary} or ${wrapper}`);
  // Not set-uid: a set-uid program runs in glibc's secure mode, which drops LD_LIBRARY_PATH and
  // LD_PRELOAD, and Exim re-runs itself for each delivery. It starts as root anyway.
  chmodSync(binary, 0o755);

  writeFileSync(join(dir, 'passwd'), `root:x:0:0:root:/root:/bin/sh\nDebian-exim:x:${EXIM_ID}:${EXIM_ID}:exim:${dir}:/bin/false\n`);
  writeFileSync(join(dir, 'group'), `root:x:0:\nDebian-exim:x:${EXIM_ID}:\n`);
  for (const sub of ['spool', 'log']) {
    mkdirSync(join(dir, sub));
    chownSync(join(dir, sub), EXIM_ID, EXIM_ID);
  }
  const config = join(dir, 'exim.conf');
  writeFileSync(config, eximConfig(dir, binary, gatewayPort, helo));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LD_LIBRARY_PATH: [join(root, 'usr/lib/x86_64-linux-gnu'), join(root, 'usr/lib')].join(':'),
    LD_PRELOAD: wrapper,
    NSS_WRAPPER_PASSWD: join(dir, 'passwd'),
    NSS_WRAPPER_GROUP: join(dir, 'group'),
  };
  const version = spawnSync(binary, ['-C', config, '-bV'], { env, encoding: 'utf8' });
  if (version.status !== 0) return fail(`exim4 -bV failed: ${(version.stderr || version.stdout).trim().split('\n')[0]}`);

  return {
    dir,
    relay(message, envelopeSender, recipient) {
      return new Promise((resolve, reject) => {
        const child = spawn(binary, ['-C', config, '-odi', '-oi', '-f', envelopeSender, recipient], {
          env,
          stdio: ['pipe', 'ignore', 'pipe'],
        });
        child.once('error', reject);
        child.once('exit', (code) => resolve(code ?? -1));
        child.stdin.end(message);
      });
    },
    mainLog: () => {
      const file = join(dir, 'log', 'mainlog');
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Everything to the gateway as a smarthost over plain SMTP, one attempt logged per delivery. */
function eximConfig(dir: string, binary: string, gatewayPort: number, helo: string): string {
  // Exim re-runs itself for each delivery: from where it is, keeping what lets it load there.
  return `
exim_path = ${binary}
keep_environment = PATH : LD_LIBRARY_PATH : LD_PRELOAD : NSS_WRAPPER_PASSWD : NSS_WRAPPER_GROUP
primary_hostname = ${helo}
spool_directory = ${dir}/spool
log_file_path = ${dir}/log/%slog
pid_file_path = ${dir}/exim.pid
log_selector = +smtp_confirmation +pipelining
trusted_users = root
never_users =

begin routers

smarthost:
  driver = manualroute
  domains = *
  transport = to_gateway
  route_list = * 127.0.0.1
  self = send
  no_more

begin transports

to_gateway:
  driver = smtp
  port = ${gatewayPort}
  helo_data = ${helo}
  hosts_avoid_tls = *

begin retry

* * F,1h,15m
`;
}
