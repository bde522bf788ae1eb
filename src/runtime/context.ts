// What every role starts from: the validated config, the logger, the clock, and the checks
// that name the variable a role needs but did not get.
import { type Config, ConfigError, loadConfig } from '../config.js';
import type { Env } from '../config-env.js';
import { describeUnknown, unknownVariablesIn } from '../config-unknown.js';
import { useFastPaths } from '../fast-paths/index.js';
import { createLogger, type Logger } from '../log.js';
import { terminalDestination } from '../log-terminal.js';
import { addressesInUse } from '../senders/addresses-in-use.js';
import type { SenderDirectory } from '../senders/directory.js';
import { liveSenderDirectory, reloadableSenderDirectory } from '../senders/live-directory.js';
import { secretVariablesNamedIn } from '../senders/secret-variables.js';
import type { Reloads } from './reloads.js';

export interface RoleContext {
  readonly config: Config;
  readonly env: Env;
  readonly logger: Logger;
  readonly clock: () => number;
}

/** Readable log lines for a person at a terminal (when pino-pretty is installed), else JSON. */
const terminal = await terminalDestination({ isTerminal: process.stdout.isTTY === true });

export function roleContext(env: Env = process.env, name = 'letter-intake'): RoleContext {
  const config = loadConfig(env);
  useFastPaths(config.fastPaths); // process-wide, before any part starts
  const logger = createLogger({ level: config.logLevel, name, ...(terminal === undefined ? {} : { destination: terminal }) });
  // A setting that does nothing is said, not ignored: doctor says it too, as a `!` line.
  if (name !== 'doctor') {
    for (const unknown of unknownVariablesIn(env, secretVariablesNamedIn(config.sendersFile))) {
      logger.warn({ event: 'config.unknown_variable', variable: unknown.name, nearest: unknown.nearest }, describeUnknown(unknown));
    }
  }
  return { config, env, logger, clock: Date.now };
}

export function required<T>(value: T | undefined, variable: string, why: string): T {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) {
    throw new ConfigError(`invalid configuration:\n  ${variable}: required ${why}`);
  }
  return value;
}

/** The sender directory from SENDERS_FILE, reloaded (as "senders") by `reloads`. */
export function senderDirectoryOf(ctx: RoleContext, reloads: Reloads): SenderDirectory {
  const file = required(ctx.config.sendersFile, 'SENDERS_FILE', 'to know the senders');
  return liveSenderDirectory(reloads.add('senders', reloadableSenderDirectory(file, ctx.env, ctx.clock, addressesInUse(ctx.config))));
}
