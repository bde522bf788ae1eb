// `letter-intake sandbox-api`: the sandbox Sender API alone, on SANDBOX_HOST:SANDBOX_PORT.
import { startSandbox } from '../sandbox/index.js';
import { roleContext, senderDirectoryOf } from './context.js';
import { closeOnSignals } from './lifecycle.js';
import { Reloads } from './reloads.js';

export async function sandboxCommand(): Promise<'running'> {
  const ctx = roleContext(process.env, 'sandbox-api');
  const reloads = new Reloads(ctx.logger);
  const sandbox = await startSandbox({
    directory: senderDirectoryOf(ctx, reloads),
    clock: ctx.clock,
    logger: ctx.logger,
    host: ctx.config.sandbox.host,
    port: ctx.config.sandbox.port,
    contractMode: ctx.config.sandbox.contractMode,
  });
  ctx.logger.info({ event: 'sandbox.listening', url: sandbox.url }, `sandbox Sender API at ${sandbox.url} (state in memory)`);
  reloads.onSignal();
  closeOnSignals([{ name: 'sandbox', close: () => sandbox.close() }], ctx.logger, 10_000);
  return 'running';
}
