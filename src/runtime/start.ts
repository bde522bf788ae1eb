// `letter-intake start` (`npm start`): everything in one process. What is not configured is
// embedded: a private redis-server (REDIS_URL unset), the sandbox Sender API (SENDER_API_URL
// unset), and, with neither SENDERS_FILE nor INBOUND_ADDRESSES, the demo setup from fixtures/.
import { fileURLToPath } from 'node:url';
import type { Env } from '../config.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { startSandbox } from '../sandbox/index.js';
import { roleContext, senderDirectoryOf } from './context.js';
import { type Closable, closeOnSignals } from './lifecycle.js';
import { startOpsPart } from './ops-part.js';
import { startEmbeddedRedis } from './redis.js';
import { shutdownBoundMs } from './roles.js';
import { startSmtpPart } from './smtp-part.js';
import { startWorkerPart } from './worker-part.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const DEMO_PROCESSING_ADDRESS = 'letters@intake.example';

const LOOPBACK = '127.0.0.1';
const orDefault = (value: string | undefined, fallback: string): string => (value === undefined || value === '' ? fallback : value);

/**
 * The demo: the Acme sender and the static DNS zone that publishes its SPF and DKIM keys. Its
 * admin password is the well-known "demo", so the ops HTTP server (admin pages) and the sandbox
 * listen on loopback only, unless HTTP_HOST / SANDBOX_HOST say otherwise.
 */
export function withDemoDefaults(env: Env): { env: Env; demo: boolean } {
  const demo = (env.SENDERS_FILE ?? '') === '' && (env.INBOUND_ADDRESSES ?? '') === '';
  if (!demo) return { env, demo };
  return {
    demo,
    env: {
      ...env,
      SENDERS_FILE: `${FIXTURES}senders.json`,
      INBOUND_ADDRESSES: DEMO_PROCESSING_ADDRESS,
      DNS_ZONE_FILE: env.DNS_ZONE_FILE ?? `${FIXTURES}zone.json`,
      DASHBOARD_PASSWORD: env.DASHBOARD_PASSWORD ?? 'demo',
      HTTP_HOST: orDefault(env.HTTP_HOST, LOOPBACK),
      SANDBOX_HOST: orDefault(env.SANDBOX_HOST, LOOPBACK),
    },
  };
}

export async function startCommand(): Promise<'running'> {
  const { env, demo } = withDemoDefaults(process.env);
  const ctx = roleContext(env, 'letter-intake');
  const { config, logger } = ctx;
  const directory = senderDirectoryOf(ctx);
  const parts: Closable[] = [];

  const redis = config.redisUrl === undefined ? await startEmbeddedRedis(config.dataDir) : undefined;
  const redisUrl = config.redisUrl ?? redis?.url ?? '';
  const sandbox =
    config.senderApiUrl === undefined
      ? await startSandbox({
          directory,
          clock: ctx.clock,
          logger: logger.child({ role: 'sandbox' }),
          host: config.sandbox.host,
          port: config.sandbox.port,
          strictContract: config.sandbox.strictContract,
        })
      : undefined;
  const apiUrl = config.senderApiUrl ?? sandbox?.url ?? '';

  const rawStore = await openCheckedRawStore(config);
  const ops = await startOpsPart(ctx, redisUrl, { admin: true, rawStore });
  const part = { ...ctx, observer: ops.observer, redisUrl, rawStore };
  const smtp = await startSmtpPart(part);
  const worker = await startWorkerPart(part, directory, apiUrl);
  ops.markStarted();
  parts.push(smtp, worker, ops, { name: 'raw-store', close: () => Promise.resolve(rawStore.close()) });
  if (sandbox !== undefined) parts.push({ name: 'sandbox', close: () => sandbox.close() });
  if (redis !== undefined) parts.push({ name: 'redis', close: () => redis.stop() });
  closeOnSignals(parts, logger, shutdownBoundMs(config));

  logger.info(
    {
      event: 'start.ready',
      smtpPort: smtp.port,
      ops: ops.url,
      senderApi: apiUrl,
      redis: redis === undefined ? 'external' : 'embedded',
      rawStore: rawStore.location,
    },
    'letter-intake is running',
  );
  if (demo) process.stdout.write(demoInstructions(smtp.port, ops.url, apiUrl));
  return 'running';
}

function demoInstructions(smtpPort: number, opsUrl: string, apiUrl: string): string {
  return `
  letter-intake is running on demo defaults (embedded Redis, sandbox Sender API, demo sender Acme).

  Send the demo letter from another terminal:
    npm run letter-intake -- send fixtures/eml/dkim-pass-aligned.eml --port ${smtpPort}

  Then see it:
    npm run letter-intake -- status <intake id from the reply>
    curl -s ${apiUrl}/sandbox/letters          (the letter, status PendingApproval)
    ${opsUrl}/admin/intakes                    (intake pages; user admin, password demo)
    ${opsUrl}/admin/queues                     (queue dashboard)

`;
}
