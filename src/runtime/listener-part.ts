// The listener of `start` and `smtp`: in this process (SMTP_PROCESSES = 1), or as that many
// listener processes sharing the port (smtp-processes.ts), whose readiness and metrics the ops
// part then includes. Unset, SMTP_PROCESSES is one per core (the demo's one is `start`'s choice).
import { availableParallelism } from 'node:os';
import { ConfigError } from '../config.js';
import type { Env } from '../config-env.js';
import { budgetShareBytes, minimumShareBytes } from '../smtp/memory-budget.js';
import type { Closable } from './lifecycle.js';
import type { OpsPart } from './ops-part.js';
import type { PartContext } from './part-context.js';
import { startSmtpProcesses } from './smtp-processes.js';

export interface ListenerPart extends Closable {
  readonly port: number;
  /** Passes a SIGHUP on to the listener processes (none when the listener runs in this process). */
  readonly reload?: () => void;
}

/**
 * How many listener processes to run. Each gets SMTP_MEMORY_BUDGET_BYTES ÷ N, which must hold one
 * maximal message (minimumShareBytes), or every message that large is refused 452 in every
 * process: a configured count whose share is smaller is refused at start; unset, one per core is
 * lowered to what the budget holds.
 */
export function listenerProcessCount(options: {
  readonly configured: number | undefined;
  readonly cores: number;
  readonly budgetBytes: number;
  readonly store: 'file' | 's3';
}): number {
  const { configured, budgetBytes } = options;
  const minimum = minimumShareBytes(options.store);
  if (configured === undefined) return Math.max(1, Math.min(options.cores, Math.floor(budgetBytes / minimum)));
  if (configured > 1 && budgetShareBytes(budgetBytes, configured) < minimum) {
    throw new ConfigError(
      `SMTP_PROCESSES=${configured} gives each listener process ${budgetShareBytes(budgetBytes, configured)} bytes of SMTP_MEMORY_BUDGET_BYTES=${budgetBytes}, ` +
        `below the ${minimum} bytes one maximal message needs with the ${options.store} store: lower SMTP_PROCESSES or raise SMTP_MEMORY_BUDGET_BYTES`,
    );
  }
  return configured;
}

export async function startListenerPart(
  part: PartContext,
  ops: Pick<OpsPart, 'attachListeners'>,
  options: { readonly defaultProcesses?: number; readonly env: Env; readonly closeBoundMs: number },
): Promise<ListenerPart> {
  const count = listenerProcessCount({
    configured: part.config.smtp.processes ?? options.defaultProcesses,
    cores: availableParallelism(),
    budgetBytes: part.config.smtp.memoryBudgetBytes,
    store: part.config.rawStore.location.kind,
  });
  if (count <= 1) return (await import('./smtp-part.js')).startSmtpPart(part);
  const processes = await startSmtpProcesses({ count, env: options.env, logger: part.logger, closeBoundMs: options.closeBoundMs });
  ops.attachListeners(processes);
  return {
    name: processes.name,
    port: processes.port,
    close: () => processes.close(),
    beginClose: () => processes.beginClose(),
    reload: () => processes.reload(),
  };
}
