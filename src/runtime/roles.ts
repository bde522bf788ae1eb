// `letter-intake smtp | worker | ops | portal`: one role per process, for scaling out. Each serves its
// own /healthz, /readyz and /metrics on OPS_HTTP_PORT; `ops` adds the dashboard and intake pages.
import type { Config } from '../config.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { TOPOLOGY_VARIABLES } from '../redis/topology.js';
import { type RoleContext, required, roleContext, senderDirectoryOf } from './context.js';
import { type Closable, closeOnSignals } from './lifecycle.js';
import { listeningAs } from './listen-errors.js';
import { type OpsPart, startOpsPart } from './ops-part.js';
import type { PartContext } from './part-context.js';
import { Reloads } from './reloads.js';
import { storeGroupCommit } from './store-group-commit.js';

export async function smtpCommand(): Promise<'running'> {
  const ctx = roleContext(process.env, 'smtp');
  required(ctx.config.inboundAddresses, 'INBOUND_ADDRESSES', 'to know which recipients to accept');
  // Each role loads only its own part: a listener never loads mailparser (only its splitter), nor a worker mailauth.
  return runRole(ctx, 'smtp', new Reloads(ctx.logger), async (part, ops) =>
    listeningAs(
      'SMTP_PORT',
      ctx.config.smtp,
      (await import('./listener-part.js')).startListenerPart(part, ops, { env: ctx.env, closeBoundMs: shutdownBoundMs(ctx.config) }),
    ),
  );
}

export async function workerCommand(): Promise<'running'> {
  const ctx = roleContext(process.env, 'worker');
  const reloads = new Reloads(ctx.logger);
  const directory = senderDirectoryOf(ctx, reloads);
  const apiUrl = required(ctx.config.senderApiUrl, 'SENDER_API_URL', 'to create letters');
  return runRole(ctx, 'worker', reloads, async (part) => (await import('./worker-part.js')).startWorkerPart(part, directory, apiUrl));
}

export async function portalCommand(): Promise<'running'> {
  const ctx = roleContext(process.env, 'portal');
  required(ctx.config.inboundAddresses, 'INBOUND_ADDRESSES', 'to address the uploads of the portal');
  const reloads = new Reloads(ctx.logger);
  const directory = senderDirectoryOf(ctx, reloads);
  const apiUrl = required(ctx.config.senderApiUrl, 'SENDER_API_URL', 'to show the status of letters');
  return runRole(ctx, 'portal', reloads, async (part) =>
    listeningAs('PORTAL_PORT', ctx.config.portal, (await import('./portal-part.js')).startPortalPart(part, directory, apiUrl)),
  );
}

export async function opsCommand(): Promise<'running'> {
  const ctx = roleContext(process.env, 'ops');
  return runRole(ctx, 'ops', new Reloads(ctx.logger), async () => undefined);
}

async function runRole(
  ctx: RoleContext,
  role: 'smtp' | 'worker' | 'ops' | 'portal',
  reloads: Reloads,
  start: (part: PartContext, ops: OpsPart) => Promise<(Closable & { readonly reload?: () => void }) | undefined>,
): Promise<'running'> {
  const redisTopology = required(ctx.config.redisTopology, TOPOLOGY_VARIABLES.join(' or '), `for the ${role} role`);
  // The listener writes messages and the worker reads them: both need the store, checked at start.
  const rawStore =
    role === 'ops'
      ? undefined
      : await openCheckedRawStore(ctx.config, ctx.logger, storeGroupCommit(role === 'smtp' ? 'listener' : role, ctx.config));
  const ops = await listeningAs(
    'OPS_HTTP_PORT',
    ctx.config.opsHttp,
    startOpsPart(ctx, redisTopology, { admin: role === 'ops', rawStore, loaded: () => reloads.loaded() }),
  );
  const part = rawStore === undefined ? undefined : await start({ ...ctx, observer: ops.observer, redisTopology, rawStore, reloads }, ops);
  ops.markStarted();
  reloads.onSignal(part?.reload);
  const closeStore: Closable = { name: 'raw-store', close: () => Promise.resolve(rawStore?.close()) };
  closeOnSignals(part === undefined ? [ops, closeStore] : [part, ops, closeStore], ctx.logger, shutdownBoundMs(ctx.config));
  return 'running';
}

/** The whole shutdown's bound: SMTP and worker grace periods plus a margin to close connections. */
export function shutdownBoundMs(config: Config): number {
  return config.smtp.closeTimeoutMs + config.worker.closeTimeoutMs + 10_000;
}
