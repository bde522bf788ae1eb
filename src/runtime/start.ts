// `letter-intake start` (`npm start`): everything in one process. What is not configured is
// embedded: a private redis-server (none of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES set), the sandbox Sender
// API (SENDER_API_URL unset), and, with neither SENDERS_FILE nor INBOUND_ADDRESSES, the demo setup from fixtures/.
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config.js';
import type { Env } from '../config-env.js';
import type { Logger } from '../log.js';
import { openCheckedRawStore } from '../raw-store/open-store.js';
import { describeTopology, type RedisTopology } from '../redis/topology.js';
import { startSandbox } from '../sandbox/index.js';
import { roleContext, senderDirectoryOf } from './context.js';
import { lockDataDir } from './data-dir-lock.js';
import { type EmbeddedRedis, startEmbeddedRedis, stopLeftoverRedis } from './embedded-redis.js';
import { type Closable, closeOnSignals } from './lifecycle.js';
import { listeningAs } from './listen-errors.js';
import { startListenerPart } from './listener-part.js';
import { startOpsPart } from './ops-part.js';
import { demoPortalUser } from './portal-demo.js';
import { startPortalPart } from './portal-part.js';
import { Reloads } from './reloads.js';
import { shutdownBoundMs } from './roles.js';
import { StartedParts } from './started-parts.js';
import { storeGroupCommit } from './store-group-commit.js';
import { startWorkerPart } from './worker-part.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const DEMO_PROCESSING_ADDRESS = 'letters@intake.example';

const LOOPBACK = '127.0.0.1';
const orDefault = (value: string | undefined, fallback: string): string => (value === undefined || value === '' ? fallback : value);

/**
 * The demo: the Acme sender and the static DNS zone that publishes its SPF and DKIM keys. Its
 * admin password is the well-known "demo", so the ops HTTP server (admin pages) and the sandbox
 * listen on loopback only, unless OPS_HTTP_HOST / SANDBOX_HOST say otherwise.
 */
export function withDemoDefaults(env: Env): { env: Env; demo: boolean } {
  const senders = (env.SENDERS_FILE ?? '') !== '';
  const addresses = (env.INBOUND_ADDRESSES ?? '') !== '';
  if (senders !== addresses) {
    // One without the other is half a deployment: no processing address answers every RCPT 550.
    const [given, missing] = senders ? ['SENDERS_FILE', 'INBOUND_ADDRESSES'] : ['INBOUND_ADDRESSES', 'SENDERS_FILE'];
    throw new ConfigError(
      `invalid configuration:\n  ${missing}: required when ${given} is set (give both for your own deployment, neither for the demo)`,
    );
  }
  if (senders) return { env, demo: false };
  return {
    demo: true,
    env: {
      ...env,
      SENDERS_FILE: `${FIXTURES}senders.json`,
      INBOUND_ADDRESSES: DEMO_PROCESSING_ADDRESS,
      DNS_ZONE_FILE: env.DNS_ZONE_FILE ?? `${FIXTURES}zone.json`,
      DASHBOARD_PASSWORD: env.DASHBOARD_PASSWORD ?? 'demo',
      OPS_HTTP_HOST: orDefault(env.OPS_HTTP_HOST, LOOPBACK),
      // the demo user's password is printed on the terminal: the portal stays on this machine too
      PORTAL_HOST: orDefault(env.PORTAL_HOST, LOOPBACK),
      SANDBOX_HOST: orDefault(env.SANDBOX_HOST, LOOPBACK),
    },
  };
}

export async function startCommand(): Promise<'running'> {
  const { env, demo } = withDemoDefaults(process.env);
  const ctx = roleContext(env, 'letter-intake');
  const { config, logger } = ctx;
  const reloads = new Reloads(logger);
  const directory = senderDirectoryOf(ctx, reloads);
  // What has started, so that a failed start stops it again (above all the embedded Redis).
  const started = new StartedParts(logger);
  try {
    let redis: EmbeddedRedis | undefined;
    let redisTopology: RedisTopology;
    if (config.redisTopology === undefined) {
      redis = await startOwnRedis(config.dataDir, started, logger);
      redisTopology = { kind: 'standalone', url: redis.url, tls: undefined };
    } else {
      redisTopology = config.redisTopology;
    }
    const sandbox =
      config.senderApiUrl === undefined
        ? await listeningAs(
            'SANDBOX_PORT',
            config.sandbox,
            startSandbox({
              directory,
              clock: ctx.clock,
              logger: logger.child({ role: 'sandbox' }),
              host: config.sandbox.host,
              port: config.sandbox.port,
              contractMode: config.sandbox.contractMode,
            }),
          )
        : undefined;
    if (sandbox !== undefined) started.add({ name: 'sandbox', close: () => sandbox.close() });
    const apiUrl = config.senderApiUrl ?? sandbox?.url ?? '';

    const rawStore = await openCheckedRawStore(config, logger, storeGroupCommit('start', config));
    const closeStore: Closable = { name: 'raw-store', close: () => Promise.resolve(rawStore.close()) };
    started.add(closeStore);
    const ops = await listeningAs(
      'OPS_HTTP_PORT',
      config.opsHttp,
      startOpsPart(ctx, redisTopology, { admin: true, rawStore, loaded: () => reloads.loaded() }),
    );
    started.add(ops);
    const part = { ...ctx, observer: ops.observer, redisTopology, rawStore, reloads };
    // Listener processes reach the embedded Redis by its URL; the demo runs one listener.
    const listenerEnv = redis === undefined ? env : { ...env, REDIS_URL: redis.url };
    const smtp = await listeningAs(
      'SMTP_PORT',
      config.smtp,
      startListenerPart(part, ops, { env: listenerEnv, closeBoundMs: shutdownBoundMs(config), ...(demo ? { defaultProcesses: 1 } : {}) }),
    );
    started.add(smtp);
    const worker = await startWorkerPart(part, directory, apiUrl);
    started.add(worker);
    const portal = await listeningAs('PORTAL_PORT', config.portal, startPortalPart(part, directory, apiUrl));
    started.add(portal);
    ops.markStarted();
    reloads.onSignal(smtp.reload);
    // Shutdown order: stop taking mail, finish jobs, then what they used; Redis and the lock last.
    closeOnSignals(
      started.inOrder(['portal', 'smtp', 'worker', 'ops', 'raw-store', 'sandbox', 'redis', 'data-dir-lock']),
      logger,
      shutdownBoundMs(config),
    );

    logger.info(
      {
        event: 'start.ready',
        smtpPort: smtp.port,
        ops: ops.url,
        portal: portal.url,
        senderApi: apiUrl,
        redis: redis === undefined ? describeTopology(redisTopology) : 'embedded',
        ...(redis === undefined ? {} : { redisPid: redis.pid }),
        rawStore: rawStore.location,
      },
      'letter-intake is running',
    );
    if (demo) {
      // The demo user is a convenience: without it the gateway runs all the same.
      const login = await demoPortalUser(redisTopology, config.redisPrefix, ctx.clock).catch((err: unknown) => {
        logger.warn({ err, event: 'start.demo_portal_user_failed' }, 'the demo portal user could not be made');
        return undefined;
      });
      process.stdout.write(demoInstructions(smtp.port, ops.url, apiUrl) + (login === undefined ? '' : demoPortal(portal.url, login)));
    }
    return 'running';
  } catch (err) {
    await started.closeAll();
    throw err;
  }
}

function demoPortal(url: string, login: { email: string; password: string }): string {
  return `  The sender portal (what Acme sees of its letters):
    ${url}/portal/login                  (user ${login.email}, password ${login.password})

`;
}

/** Takes DATA_DIR, stops a Redis a killed predecessor left running, and starts ours. */
async function startOwnRedis(dataDir: string, started: StartedParts, logger: Logger): Promise<EmbeddedRedis> {
  const lock = await lockDataDir(dataDir);
  started.add({ name: 'data-dir-lock', close: () => lock.release() });
  const leftover = await stopLeftoverRedis(dataDir);
  if (leftover !== undefined) {
    logger.warn({ event: 'start.leftover_redis_stopped', pid: leftover }, 'stopped the embedded Redis a previous start left running');
  }
  const redis = await startEmbeddedRedis(dataDir);
  started.add({ name: 'redis', close: () => redis.stop() });
  return redis;
}

function demoInstructions(smtpPort: number, opsUrl: string, apiUrl: string): string {
  return `
  letter-intake is running on demo defaults (embedded Redis, sandbox Sender API, demo sender Acme).

  Send the demo letter from another terminal:
    npm run letter-intake -- send fixtures/eml/dkim-pass-aligned.eml --port ${smtpPort}
  or a PDF of your own, signed as the demo sender:
    npm run letter-intake -- send --pdf FILE.pdf --subject 'My letter' --port ${smtpPort}

  Then see it:
    npm run letter-intake -- status <intake id from the reply>
    curl -s ${apiUrl}/sandbox/letters          (the letter, status PendingApproval)
    ${opsUrl}/admin/intakes                    (intake pages; user admin, password demo)
    ${opsUrl}/admin/queues                     (queue dashboard)

`;
}
