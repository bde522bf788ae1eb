// The sender portal part: its own HTTP listener (PORTAL_PORT), its state in Redis under the
// gateway's prefix, and an upload's hand-off to the same durable acceptance the listener uses
// (the raw store, the record and the job), read by the same workers.
import { acceptIntake } from '../intake/accept.js';
import { createIntakeQueue } from '../intake/queue.js';
import { rawStoreSpool } from '../intake/raw-spool.js';
import { SelfTestReports } from '../intake/self-test-reports.js';
import { portalAudit } from '../portal/audit.js';
import type { PortalContext } from '../portal/context.js';
import { portalCsrf } from '../portal/csrf.js';
import { EmailCodes, relayMailer } from '../portal/email-code.js';
import { FormTokens } from '../portal/form-tokens.js';
import { portalKeys } from '../portal/keys.js';
import { letterStatuses } from '../portal/letter-status.js';
import { SenderIntakes } from '../portal/sender-intakes.js';
import { SenderSelfTests } from '../portal/sender-self-tests.js';
import { startPortalServer } from '../portal/server.js';
import { PortalSessions } from '../portal/sessions.js';
import { PortalThrottle } from '../portal/throttle.js';
import { handOffUpload, type UploadDeps } from '../portal/upload.js';
import { PortalUsers } from '../portal/users.js';
import { openRedis } from '../redis/connections.js';
import { createSenderApiClient } from '../sender-api/index.js';
import type { SenderDirectory } from '../senders/directory.js';
import { logErrorsSparingly } from '../support/sparing-error-log.js';
import { acceptDepsFor } from './accept-deps.js';
import { CLOSE_STEP_BOUND_MS, stepBound, within } from './bounded-close.js';
import { required } from './context.js';
import type { Closable } from './lifecycle.js';
import { type PartContext, storeFor } from './part-context.js';
import { logConnectionErrors, waitForRedis } from './redis.js';
import { startReplicaAck } from './replica-ack-part.js';

/** PDFs one upload may carry. */
export const PORTAL_MAX_PDFS = 10;

export interface PortalPart extends Closable {
  readonly url: string;
  readonly port: number;
}

export async function startPortalPart(ctx: PartContext, directory: SenderDirectory, apiUrl: string): Promise<PortalPart> {
  const { config } = ctx;
  const log = ctx.logger.child({ role: 'portal' });
  const processingAddress = required(config.inboundAddresses[0], 'INBOUND_ADDRESSES', 'to address the uploads of the portal');
  const redis = openRedis(ctx.redisTopology, { kind: 'producer', commandTimeoutMs: config.enqueueTimeoutMs });
  logConnectionErrors(redis, log, 'portal.redis_error');
  await waitForRedis(redis, ctx.redisTopology, config.redisStartTimeoutMs);
  const queue = createIntakeQueue(redis, config.redisPrefix);
  queue.on('error', logErrorsSparingly(log, 'portal.queue_error', 'queue error'));
  await queue.waitUntilReady();
  const store = storeFor(ctx, redis);
  const replicas = await startReplicaAck(ctx, redis, log, 'portal.replica_ack_redis_error');
  const acceptDeps = acceptDepsFor(ctx, { store, queue, redis, replicas: replicas?.ack, senders: directory });
  const uploadDeps: UploadDeps = {
    accept: (intake, message) => acceptIntake(acceptDeps, intake, message),
    spool: rawStoreSpool(ctx.rawStore),
    rules: {
      isRegistered: (address) => directory.byAddress(address) !== undefined,
      maxPdfBytes: config.maxPdfBytes,
      apiLimits: config.apiLimits,
    },
    processingAddress,
    hostname: config.smtp.hostname,
    maxMessageBytes: config.maxMessageBytes,
    clock: ctx.clock,
  };
  // A client per Sender API: a sender with senderApiUrl has its letters there.
  const clients = new Map<string, ReturnType<typeof createSenderApiClient>>();
  const clientFor = (baseUrl: string) => {
    const known = clients.get(baseUrl);
    if (known !== undefined) return known;
    const made = createSenderApiClient({ baseUrl, clock: ctx.clock, timeoutMs: config.senderApiTimeoutMs, logger: log });
    clients.set(baseUrl, made);
    return made;
  };
  const keys = portalKeys(config.redisPrefix);
  const portal: PortalContext = {
    redis,
    keys,
    users: new PortalUsers(redis, keys),
    sessions: new PortalSessions(redis, keys, ctx.clock),
    throttle: new PortalThrottle(redis, keys),
    csrf: await portalCsrf(redis, keys),
    audit: portalAudit(redis, keys, log, ctx.clock),
    emailCodes: new EmailCodes(redis, keys),
    sendMail:
      config.notices.smtpUrl === undefined ? undefined : relayMailer(config.notices.smtpUrl, config.notices.from, config.notices.timeoutMs),
    formTokens: new FormTokens(redis, keys),
    directory,
    intakes: new SenderIntakes(store),
    letterStatus: letterStatuses((sender) => clientFor(sender.senderApiUrl ?? apiUrl).as(sender), ctx.clock),
    ...(config.selfTestAddress === undefined ? {} : { selfTests: new SenderSelfTests(new SelfTestReports(redis, config.redisPrefix)) }),
    upload: (upload) => handOffUpload(uploadDeps, upload),
    maxPdfBytes: config.maxPdfBytes,
    maxPdfs: PORTAL_MAX_PDFS,
    maxUploadBytes: config.maxMessageBytes,
    clock: ctx.clock,
    logger: log,
  };
  const server = await startPortalServer(portal, {
    host: config.portal.host,
    port: config.portal.port,
    trustedProxies: config.opsHttp.trustedProxies,
  });
  log.info({ event: 'portal.listening', url: server.url }, 'sender portal ready');
  return {
    name: 'portal',
    url: server.url,
    port: server.port,
    async close() {
      await server.close();
      await within(queue.close(), stepBound(redis, CLOSE_STEP_BOUND_MS));
      redis.disconnect();
      replicas?.connection.disconnect();
    },
  };
}
