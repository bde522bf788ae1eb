#!/usr/bin/env node
// The `letter-intake` command: parses arguments and starts a role. Each command's module is
// loaded on demand, so `send` or `status` do not load the mail authentication stack.
import { parseArgs } from 'node:util';
import { ZoneFileError } from './auth/zone-resolver.js';
import { ConfigError } from './config.js';
import { StartupError } from './errors.js';
import { holdHangups } from './runtime/hangups.js';
import { SenderApiConfigError } from './sender-api/errors.js';
import { SenderDirectoryError } from './senders/directory.js';

const USAGE = `usage: letter-intake <command> [options]

  start                 listener + worker + ops HTTP in one process, embedded defaults for
                        what is not configured (private redis-server, sandbox Sender API, demo setup)
  smtp | worker | ops   one role each, for scaling out
  portal                the sender portal alone (PORTAL_PORT)
  portal-user add --sender SENDER_ID --email ADDRESS
                        make a portal user; prints its one-time set-password link
                        (also for a forgotten password: \`portal-user link --email ADDRESS\`)
  portal-user list | disable --email ADDRESS | link --email ADDRESS
  sandbox-api           the sandbox Sender API alone (SANDBOX_PORT)
  send FILE.eml         send a message over SMTP and print the reply
                        [--from ADDR] [--to ADDR] [--host HOST] [--port PORT]
  send --pdf FILE.pdf   a letter of your own: composed from the demo sender, signed with the
                        demo key, and sent [--subject S] [--body TEXT] [--to/--host/--port]
  status ID [--json]    what became of an intake: its state, checks, timeline, notices
                        (--json: the whole record); ID may be a Message-ID or From, which
                        also finds refusals in the SMTP session
  refusals              every refusal in the SMTP session counted, and the sampled ones
                        [--from DOMAIN] [--since TIME] [--json]
  replay ID             re-queue a failed intake
  replay-failed         re-queue every failed intake that matches
                        [--error-code CODE] [--since TIME] [--until TIME] [--sender ID|ADDRESS]
  erase ID --reason TEXT  erase an intake's personal data (raw mail, markers, record fields,
                        job data, refusals) [--by NAME] [--force]; or --sender ID --before DATE
  rekey                 after a key rotation (RAW_STORE_KEYS old,new): seal every blob and
                        marker again under the new key (re-runnable; exit 0: the old key may go)
  recover               after Redis lost intake records: bring back from the raw store every
                        intake answered 250 (idempotent; safe while listeners and workers run)
  doctor                check the deployment (Redis, raw store, Sender API, DNS, TLS,
                        sender directory); exit 1 when any check fails. With no Redis
                        configured (REDIS_URL, REDIS_SENTINELS) it checks the running \`npm start\`

Configuration comes from environment variables; see docs/configuration.md.`;

type Command = (args: readonly string[], options: Readonly<Record<string, string | boolean | undefined>>) => Promise<number | 'running'>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./runtime/start.js')).startCommand,
  smtp: async () => (await import('./runtime/roles.js')).smtpCommand,
  worker: async () => (await import('./runtime/roles.js')).workerCommand,
  ops: async () => (await import('./runtime/roles.js')).opsCommand,
  portal: async () => (await import('./runtime/roles.js')).portalCommand,
  'portal-user': async () => (await import('./runtime/portal-user-command.js')).portalUserCommand,
  'sandbox-api': async () => (await import('./runtime/sandbox-role.js')).sandboxCommand,
  send: async () => (await import('./runtime/send-command.js')).sendCommand,
  status: async () => (await import('./runtime/intake-commands.js')).statusCommand,
  replay: async () => (await import('./runtime/intake-commands.js')).replayCommand,
  refusals: async () => (await import('./runtime/refusals-command.js')).refusalsCommand,
  'replay-failed': async () => (await import('./runtime/replay-failed-command.js')).replayFailedCommand,
  recover: async () => (await import('./runtime/recover-command.js')).recoverCommand,
  doctor: async () => (await import('./runtime/doctor-command.js')).doctorCommand,
  rekey: async () => (await import('./runtime/rekey-command.js')).rekeyCommand,
  erase: async () => (await import('./runtime/erase-command.js')).eraseCommand,
};

/** The long-running commands: SIGHUP reloads them; it ends the others, as for any program. */
const ROLES = new Set(['start', 'smtp', 'worker', 'ops', 'portal', 'sandbox-api']);

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  pdf: { type: 'string' },
  subject: { type: 'string' },
  body: { type: 'string' },
  json: { type: 'boolean' },
  'error-code': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  sender: { type: 'string' },
  email: { type: 'string' },
  reason: { type: 'string' },
  by: { type: 'string' },
  before: { type: 'string' },
  force: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A mistake on the command line: said in one line, then the usage, exit 64 (EX_USAGE). */
function usageError(problem: string): number {
  process.stderr.write(`letter-intake: ${problem}\n\n${USAGE}\n`);
  return 64;
}

async function main(argv: readonly string[]): Promise<number | 'running'> {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, options: OPTIONS });
  } catch (err) {
    // node:util names the option and what was wrong with it (unknown, or a missing value).
    const message = err instanceof Error ? err.message : String(err);
    return usageError(message.split('. ')[0] ?? message);
  }
  const { positionals, values } = parsed;
  const [name, ...rest] = positionals;
  if (values.help === true || name === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return values.help === true ? 0 : 64;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load === undefined) return usageError(`unknown command "${name}"`);
  // A role catches SIGHUP before it loads anything: one during start is a reload, applied once it is up.
  if (ROLES.has(name)) holdHangups();
  const { help: _help, ...options } = values;
  return (await load())(rest, options);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 'running') process.exitCode = code;
  },
  (err: unknown) => {
    // What an operator must fix is said plainly, without a stack trace.
    const config =
      err instanceof ConfigError ||
      err instanceof SenderDirectoryError ||
      err instanceof ZoneFileError ||
      err instanceof SenderApiConfigError;
    const unavailable = err instanceof StartupError;
    const text = config || unavailable ? err.message : err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`letter-intake: ${text}\n`);
    process.exit(config ? 78 : unavailable ? 69 : 1); // sysexits: EX_CONFIG, EX_UNAVAILABLE
  },
);
