// Serves the sandbox on host:port (port 0: any free port) and hands back its address and state.
import type { Logger } from '../log.js';
import type { SenderDirectory } from '../senders/directory.js';
import { type ContractMode, contractDialect } from './contract-mode.js';
import { createSandboxServer } from './server.js';
import { SandboxStore } from './store.js';

export interface StartSandboxOptions {
  readonly directory: SenderDirectory;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly host: string;
  readonly port: number;
  /** Where the contract leaves a choice open, how to answer (SANDBOX_CONTRACT_MODE; default 'ours'). */
  readonly contractMode?: ContractMode;
}

export interface RunningSandbox {
  /** Base address, e.g. http://127.0.0.1:8090 (no trailing slash). */
  readonly url: string;
  readonly store: SandboxStore;
  close(): Promise<void>;
}

export async function startSandbox(options: StartSandboxOptions): Promise<RunningSandbox> {
  const store = new SandboxStore(options.directory, options.clock, contractDialect(options.contractMode ?? 'ours').sessionTtlMs);
  const app = createSandboxServer({ ...options, store });
  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the sandbox is not listening on a TCP port');
  return {
    url: `http://${callableHost(address.address, address.family)}:${address.port}`,
    store,
    close: () => app.close(),
  };
}

/** The host to call a server listening on `address` by: every interface is reached over loopback. */
function callableHost(address: string, family: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return family === 'IPv6' ? `[${address}]` : address;
}
