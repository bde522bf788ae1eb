#!/usr/bin/env node
// The `letter-intake` command: parses arguments and starts a role. Each command's module is
// loaded on demand, so `send` or `status` do not load the mail authentication stack.
import { parseArgs } from 'node:util';
import { ZoneFileError } from './auth/zone-resolver.js';
import { ConfigError } from './config.js';
import { StartupError } from './errors.js';
import { SenderApiConfigError } from './sender-api/errors.js';
import { SenderDirectoryError } from './senders/directory.js';

const USAGE = `usage: letter-intake <command> [options]

  start                 listener + worker + ops HTTP in one process, embedded defaults for
                        what is not configured (private redis-server, sandbox Sender API, demo setup)
  smtp | worker | ops   one role each, for scaling out
  sandbox-api           the sandbox Sender API alone (SANDBOX_PORT)
  send FILE.eml         send a message over SMTP and print the reply
                        [--from ADDR] [--to ADDR] [--host HOST] [--port PORT]
  status ID             print an intake's record
  replay ID             re-queue a failed intake
  doctor                check the deployment (Redis, raw store, Sender API, DNS, TLS,
                        sender directory); exit 1 when any check fails

Configuration comes from environment variables; see docs/configuration.md.`;

type Command = (args: readonly string[], options: Record<string, string | undefined>) => Promise<number | 'running'>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  start: async () => (await import('./runtime/start.js')).startCommand,
  smtp: async () => (await import('./runtime/roles.js')).smtpCommand,
  worker: async () => (await import('./runtime/roles.js')).workerCommand,
  ops: async () => (await import('./runtime/roles.js')).opsCommand,
  'sandbox-api': async () => (await import('./runtime/sandbox-role.js')).sandboxCommand,
  send: async () => (await import('./runtime/send-command.js')).sendCommand,
  status: async () => (await import('./runtime/intake-commands.js')).statusCommand,
  replay: async () => (await import('./runtime/intake-commands.js')).replayCommand,
  doctor: async () => (await import('./runtime/doctor-command.js')).doctorCommand,
};

async function main(argv: readonly string[]): Promise<number | 'running'> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [name, ...rest] = positionals;
  const load = name === undefined ? undefined : COMMANDS[name];
  if (values.help === true || load === undefined) {
    process.stdout.write(`${USAGE}\n`);
    return values.help === true ? 0 : 64; // EX_USAGE
  }
  const { help: _help, ...options } = values;
  return (await load())(rest, options);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 'running') process.exitCode = code;
  },
  (err: unknown) => {
    // Configuration problems are the operator's to fix: say what, without a stack trace.
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
