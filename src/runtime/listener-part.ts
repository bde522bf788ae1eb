// The listener of `start` and `smtp`: in this process (SMTP_PROCESSES = 1), or as that many
// listener processes sharing the port (smtp-processes.ts), whose readiness and metrics the ops
// part then includes. Unset, SMTP_PROCESSES is one per core (the demo's one is `start`'s choice).
import { availableParallelism } from 'node:os';
import type { Env } from '../config-env.js';
import type { Closable } from './lifecycle.js';
import type { OpsPart } from './ops-part.js';
import type { PartContext } from './part-context.js';
import { startSmtpProcesses } from './smtp-processes.js';

export interface ListenerPart extends Closable {
  readonly port: number;
  /** Passes a SIGHUP on to the listener processes (none when the listener runs in this process). */
  readonly reload?: () => void;
}

export async function startListenerPart(
  part: PartContext,
  ops: Pick<OpsPart, 'attachListeners'>,
  options: { readonly defaultProcesses?: number; readonly env: Env; readonly closeBoundMs: number },
): Promise<ListenerPart> {
  const count = part.config.smtp.processes ?? options.defaultProcesses ?? availableParallelism();
  if (count <= 1) return (await import('./smtp-part.js')).startSmtpPart(part);
  const processes = await startSmtpProcesses({ count, env: options.env, logger: part.logger, closeBoundMs: options.closeBoundMs });
  ops.attachListeners(processes);
  return { name: processes.name, port: processes.port, close: () => processes.close(), reload: () => processes.reload() };
}
