// The peer: Haraka in as many processes as the gateway's listener (SMTP_PROCESSES, else one per
// core; one process is Haraka without its cluster), configured like a receiving MX that checks
// what the gateway checks: its SPF plugin and its DKIM plugin (verify only), recipients of
// intake.example only, and a queue that discards. DNS comes from fixtures/zone.json through the
// gateway's own zone resolver, patched into node:dns before Haraka loads, so both answer from
// the same records and nothing leaves loopback. Forked by the bench (HARAKA_HOME, HARAKA_PORT);
// announces itself over IPC like the sink.
import dns, { promises as dnsPromises } from 'node:dns';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { loadZoneResolver } from '../src/auth/zone-resolver.js';
import { untilListening } from './port-listening.js';
import { REPO } from './processes.js';

const home = process.env.HARAKA_HOME ?? '';
const port = Number(process.env.HARAKA_PORT ?? 0);
const processes = Number(process.env.SMTP_PROCESSES ?? availableParallelism());

const CONFIG: Readonly<Record<string, string>> = {
  'smtp.ini': `[main]\nlisten=127.0.0.1:${port}\nnodes=${processes > 1 ? processes : 0}\npublic_ip=192.0.2.1\n`,
  'log.ini': `[main]\nlevel=${process.env.HARAKA_LOG_LEVEL ?? 'warn'}\n`,
  // bench_public_ip first: Haraka's SPF plugin skips clients on private addresses (loopback)
  plugins: 'bench_public_ip\nspf\ndkim\nrcpt_to.in_host_list\nqueue/discard\n',
  host_list: 'intake.example\n',
  'dkim.ini': '[sign]\nenabled=false\n[verify]\nenabled=true\n',
};

const PUBLIC_IP_PLUGIN = `// bench only: treat the loopback client as a public address, so SPF is checked as for a real MX
exports.hook_connect_init = function (next, connection) {
    connection.remote.is_private = false
    next()
}
`;

/** Haraka's own default configuration, with the files above written over it. */
function writeConfig(): void {
  cpSync(join(home, 'node_modules', 'Haraka', 'config'), join(home, 'config'), { recursive: true });
  mkdirSync(join(home, 'plugins'), { recursive: true });
  for (const [file, text] of Object.entries(CONFIG)) writeFileSync(join(home, 'config', file), text);
  writeFileSync(join(home, 'plugins', 'bench_public_ip.js'), PUBLIC_IP_PLUGIN);
}

/** node:dns (promises and callbacks) answering from the zone file; no PTR records. */
function answerDnsFromZone(): void {
  const zone = loadZoneResolver(join(REPO, 'fixtures', 'zone.json'));
  const byType =
    (rrtype: string) =>
    (name: string): Promise<unknown> =>
      zone(name, rrtype);
  const noPtr = (): Promise<never> => Promise.reject(Object.assign(new Error('no PTR records in the bench zone'), { code: 'ENOTFOUND' }));
  const answers: Readonly<Record<string, (name: string) => Promise<unknown>>> = {
    resolveTxt: byType('TXT'),
    resolve4: byType('A'),
    resolve6: byType('AAAA'),
    resolveMx: byType('MX'),
    reverse: noPtr,
  };
  for (const [method, answer] of Object.entries(answers)) {
    Reflect.set(dnsPromises, method, answer);
    Reflect.set(dns, method, (name: string, callback: (err: unknown, value?: unknown) => void) => {
      answer(name).then(
        (value) => callback(null, value),
        (err: unknown) => callback(err),
      );
    });
  }
  Reflect.set(dnsPromises, 'resolve', (name: string, rrtype: string = 'A') => zone(name, rrtype));
}

writeConfig();
answerDnsFromZone();
process.env.HARAKA = home;
process.env.YES_REALLY_DO_DISCARD = '1';
createRequire(join(home, 'package.json'))('Haraka/haraka.js');
untilListening(port, 30_000, 'Haraka').then(
  () => process.send?.({ kind: 'listening', port }),
  (err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  },
);
process.on('disconnect', () => process.exit(0));
