// The MX-facing listener: smtp-server's options and hooks assembled, the listen, the close.
// Connections are admitted in on-connect.ts, a message's DATA is taken in on-data.ts; every
// decision lives in receive-message.ts and the recipient rules (self-test-recipient.ts); every
// reply text in reply.ts.
import cluster from 'node:cluster';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { IntakeError } from '../errors.js';
import { enhanceSizeReply } from '../fast-paths/index.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { Logger } from '../log.js';
import { closeAfterClientFin } from './half-close.js';
import { ADMIT_BYTES, MemoryBudget } from './memory-budget.js';
import { connectionAdmission } from './on-connect.js';
import { dataHandler } from './on-data.js';
import type { ReceiveDeps } from './receive-message.js';
import { judgeRecipient } from './self-test-recipient.js';
import { type Deadline, type DeadlineLimits, SessionDeadlines } from './session-deadlines.js';
import { SessionLogs } from './session-log.js';
import type { TlsPair } from './tls-material.js';

/** What the listener is told: its address, its caps and its deadlines (SMTP_* and the message limits). */
export interface ListenerOptions extends DeadlineLimits {
  readonly host: string;
  readonly port: number;
  /** The name the listener greets with and authenticates as. */
  readonly hostname: string;
  readonly maxClients: number;
  /** Connections one client network may hold (on-connect.ts). */
  readonly maxClientsPerIp: number;
  readonly socketTimeoutMs: number;
  /** What open sessions get to finish once close() is called, then 421. */
  readonly closeTimeoutMs: number;
  /** The PROXY protocol header is expected in front of each connection. */
  readonly useProxy: boolean;
  /** The listener-wide budget every message's buffers are reserved from (memory-budget.ts). */
  readonly memoryBudgetBytes: number;
  readonly inboundAddresses: readonly string[];
  /** Mail to it is a self-test (self-test-recipient.ts); undefined: no self-test. */
  readonly selfTestAddress?: string | undefined;
  readonly maxMessageBytes: number;
  readonly authTimeoutMs: number;
}

/** How long close() waits, after the connections closed, for the partial writes they leave to be deleted. */
const DISCARD_SETTLE_MS = 2000;

export interface ListenerDeps
  extends Omit<ReceiveDeps, 'hostname' | 'maxMessageBytes' | 'authTimeoutMs' | 'memory' | 'onAuthSeconds' | 'discarding'> {
  readonly logger: Logger;
  readonly observer: IntakeObserver;
  /** A sender's own processing address (SENDERS_FILE), taken at RCPT like INBOUND_ADDRESSES. */
  readonly isSenderAddress?: ((address: string) => boolean) | undefined;
  /** The STARTTLS key and certificate, read and checked (tls-material.ts); absent: STARTTLS is off. */
  readonly tls?: TlsPair | undefined;
}

export interface Listener {
  readonly port: number;
  /** Serves STARTTLS with this pair from the next handshake on; sessions already open keep theirs. */
  updateTls(pair: TlsPair): void;
  /** Stops accepting; open sessions get closeTimeoutMs to finish, then 421. */
  close(): Promise<void>;
}

/**
 * smtp-server answers an over-size `MAIL FROM … SIZE=` itself; this gives that reply our enhanced
 * code. It also starts each connection's deadlines, which end it with a 421 of their own.
 */
class MxServer extends SMTPServer {
  constructor(
    options: SMTPServerOptions,
    private readonly deadlines: SessionDeadlines,
    private readonly onDeadline: (session: SMTPServerSession, deadline: Deadline) => void,
  ) {
    super(options);
  }

  override connect(...args: Parameters<SMTPServer['connect']>): void {
    super.connect(...args);
    const connection = [...this.connections].at(-1); // a Set iterates in insertion order
    if (connection === undefined) return;
    this.deadlines.start(connection.id, (deadline, reply) => {
      this.onDeadline(connection.session, deadline);
      connection.send(421, reply); // smtp-server closes the connection after a 421
    });
    enhanceSizeReply(connection, this.options.size);
    closeAfterClientFin(connection);
  }
}

export async function startListener(options: ListenerOptions, deps: ListenerDeps): Promise<Listener> {
  const logs = new SessionLogs(deps.logger, deps.observer);
  /** Partial writes of messages not stored, being deleted: close() lets them finish before the process exits. */
  const discards = new Set<Promise<void>>();
  const memory = new MemoryBudget(options.memoryBudgetBytes, ADMIT_BYTES);
  const deadlines = new SessionDeadlines(options);
  const onDeadline = (session: SMTPServerSession, deadline: Deadline): void => {
    deps.observer.smtpReply(421, deadline === 'data' ? 'DATA' : 'SESSION');
    logs.of(session).info({ event: 'smtp.deadline', deadline, code: 421 }, 'deadline passed, connection closed');
  };
  const admission = connectionAdmission({ maxClientsPerIp: options.maxClientsPerIp, observer: deps.observer, logs, deadlines });
  const receive: ReceiveDeps = {
    ...deps,
    hostname: options.hostname,
    maxMessageBytes: options.maxMessageBytes,
    authTimeoutMs: options.authTimeoutMs,
    memory,
    onAuthSeconds: (s) => deps.observer.stageDuration('auth', s),
    discarding: (discard) => {
      discards.add(discard);
      void discard.finally(() => discards.delete(discard));
    },
  };
  const data = dataHandler({ receive, observer: deps.observer, logs, deadlines });

  const serverOptions: SMTPServerOptions = {
    name: options.hostname,
    banner: 'letter-intake ESMTP',
    size: options.maxMessageBytes,
    disabledCommands: deps.tls === undefined ? ['AUTH', 'STARTTLS'] : ['AUTH'],
    authOptional: true,
    disableReverseLookup: true,
    maxClients: options.maxClients,
    maxRecipients: 10,
    socketTimeout: options.socketTimeoutMs,
    // Our close() already waited for transactions in flight; idle sessions are told 421 soon after.
    closeTimeout: Math.min(options.closeTimeoutMs, 1000),
    useProxy: options.useProxy,
    // a client's FIN ends only its direction: what it sent before is still answered (half-close.ts)
    allowHalfOpen: true,
    logger: false,
    ...(deps.tls === undefined ? {} : { key: deps.tls.key, cert: deps.tls.cert }),

    onConnect: admission.onConnect,
    onClose: admission.onClose,

    onMailFrom(_address, session, callback) {
      if (memory.admits()) return callback();
      callback(logs.refuse(session, 'MAIL', new IntakeError('MemoryBudgetExhausted', 'insufficient system storage, try again later')));
    },

    onRcptTo(address, session, callback) {
      const accepted = session.envelope.rcptTo.map((r) => r.address);
      const refusal = judgeRecipient(address.address, accepted, {
        processing: options.inboundAddresses,
        selfTest: options.selfTestAddress,
        isSenderAddress: deps.isSenderAddress,
      });
      if (refusal === undefined) return callback();
      callback(logs.refuse(session, 'RCPT', refusal));
    },

    onData: data.onData,
  };

  const server = new MxServer(serverOptions, deadlines, onDeadline);
  server.on('error', (err) => deps.logger.warn({ err, event: 'smtp.error' }, 'smtp connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  deps.logger.info({ event: 'smtp.listening', host: options.host, port, hostname: options.hostname }, 'SMTP listener ready');
  return {
    port,
    updateTls: (pair) => server.updateSecureContext({ key: pair.key, cert: pair.cert }),
    async close() {
      admission.refuseNewConnections();
      // A listener process (SMTP_PROCESSES > 1) stops listening first: the primary then hands new
      // connections to its siblings instead of this one answering them 421. Open sockets stay.
      const listening = cluster.isWorker ? new Promise<void>((resolve) => server.server.close(() => resolve())) : undefined;
      const deadline = Date.now() + options.closeTimeoutMs;
      while (data.inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await listening;
      // A transaction the close cut off leaves a partial write, which "abandoned before the commit
      // leaves nothing" (docs/design.md §10) has it delete: the process must not exit first.
      const settleBy = Date.now() + DISCARD_SETTLE_MS;
      while ((data.inFlight > 0 || discards.size > 0) && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
