// The MX-facing listener: smtp-server wiring and its session hooks. Every decision lives in
// receive-message.ts and recipient-policy.ts; every reply text in reply.ts.
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import type { Config } from '../config.js';
import { IntakeError } from '../errors.js';
import { enhanceSizeReply } from '../fast-paths/index.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { Logger } from '../log.js';
import { networkOf } from '../net/client-network.js';
import { closeAfterClientFin } from './half-close.js';
import { MemoryBudget } from './memory-budget.js';
import { type ReceiveDeps, receiveMessage } from './receive-message.js';
import { acceptedReply, replyFor } from './reply.js';
import { judgeRecipient } from './self-test-recipient.js';
import { type Deadline, SessionDeadlines } from './session-deadlines.js';
import type { TlsPair } from './tls-material.js';

export type ListenerOptions = Config['smtp'] & {
  readonly inboundAddresses: readonly string[];
  /** Mail to it is a self-test (self-test-recipient.ts); undefined: no self-test. */
  readonly selfTestAddress?: string | undefined;
  readonly maxMessageBytes: number;
  readonly authTimeoutMs: number;
};

/** The per-address cap counts IPv4 clients per address and IPv6 clients per /64 (one site's subnet). */
const PER_ADDRESS_NETWORKS = { v4Bits: 32, v6Bits: 64 } as const;

/** Room a new transaction needs in the memory budget: a header block and a spool batch. */
const ADMIT_BYTES = 512 * 1024;
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
  const perIp = new Map<string, number>();
  /** Sessions counted in perIp, by id: only these are counted down when they close. */
  const counted = new Map<string, string>();
  let closing = false;
  let inFlight = 0;
  /** Partial writes of messages not stored, being deleted: close() lets them finish before the process exits. */
  const discards = new Set<Promise<void>>();
  const sessionLogs = new Map<string, Logger>();
  const log = (session: SMTPServerSession): Logger => sessionLogs.get(session.id) ?? deps.logger;
  const refuse = (session: SMTPServerSession, command: string, err: unknown): Error => {
    const reply = replyFor(err, session.id);
    const intakeId = err instanceof IntakeError ? err.intakeId : undefined;
    if (!(err instanceof IntakeError) || err.code === 'Unexpected') {
      // a fault of ours, answered 451 (try later): it needs a look
      log(session).error({ err, event: 'smtp.unexpected', command, intakeId }, 'unexpected error, answered 451');
    }
    deps.observer.smtpReply(reply.responseCode, command);
    // the reply names no internal detail; the error, under the reply's reference, is kept here
    const detail = err instanceof IntakeError && (err.code === 'StorageUnavailable' || err.code === 'ReplicasBehind') ? { err } : {};
    log(session).info({ event: 'smtp.refused', command, code: reply.responseCode, reply: reply.message, intakeId, ...detail }, 'refused');
    return reply;
  };
  const memory = new MemoryBudget(options.memoryBudgetBytes, ADMIT_BYTES);
  const deadlines = new SessionDeadlines(options);
  const onDeadline = (session: SMTPServerSession, deadline: Deadline): void => {
    deps.observer.smtpReply(421, deadline === 'data' ? 'DATA' : 'SESSION');
    log(session).info({ event: 'smtp.deadline', deadline, code: 421 }, 'deadline passed, connection closed');
  };
  const receiveDeps: ReceiveDeps = {
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

    onConnect(session, callback) {
      deps.observer.smtpConnection();
      // one client is counted once: an IPv4-mapped address as IPv4 (per /32), IPv6 per /64
      const network = networkOf(session.remoteAddress, PER_ADDRESS_NETWORKS);
      const count = (perIp.get(network) ?? 0) + 1;
      perIp.set(network, count);
      counted.set(session.id, network);
      sessionLogs.set(session.id, deps.logger.child({ smtpSession: session.id, clientIp: session.remoteAddress }));
      if (closing) return callback(refuse(session, 'CONNECT', new IntakeError('ShuttingDown', 'service shutting down, try again later')));
      if (count > options.maxClientsPerIp) {
        return callback(
          refuse(session, 'CONNECT', new IntakeError('TooManyConnections', 'too many connections from your address, try again later')),
        );
      }
      callback();
    },

    onClose(session) {
      // smtp-server also closes connections that never reached onConnect (over maxClients, gone
      // before the greeting): counting those down would wear the per-IP cap away.
      deadlines.end(session.id);
      const address = counted.get(session.id);
      counted.delete(session.id);
      sessionLogs.delete(session.id);
      if (address === undefined) return;
      const count = (perIp.get(address) ?? 1) - 1;
      if (count <= 0) perIp.delete(address);
      else perIp.set(address, count);
    },

    onMailFrom(_address, session, callback) {
      if (memory.admits()) return callback();
      callback(refuse(session, 'MAIL', new IntakeError('MemoryBudgetExhausted', 'insufficient system storage, try again later')));
    },

    onRcptTo(address, session, callback) {
      const accepted = session.envelope.rcptTo.map((r) => r.address);
      const refusal = judgeRecipient(address.address, accepted, {
        processing: options.inboundAddresses,
        selfTest: options.selfTestAddress,
        isSenderAddress: deps.isSenderAddress,
      });
      if (refusal === undefined) return callback();
      callback(refuse(session, 'RCPT', refusal));
    },

    onData(stream, session, callback) {
      const envelope = {
        mailFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
        rcptTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
        clientIp: session.remoteAddress,
        helo: session.hostNameAppearsAs,
      };
      inFlight += 1;
      deadlines.dataStarted(session.id);
      stream.once('end', () => deadlines.dataEnded(session.id));
      receiveMessage(receiveDeps, stream, envelope)
        .finally(() => {
          inFlight -= 1;
        })
        .then(
          ({ intakeId, duplicate, reply: own }) => {
            const reply = own ?? acceptedReply(intakeId);
            deps.observer.smtpReply(250, 'DATA');
            log(session).info({ event: 'smtp.accepted', intakeId, duplicate, code: 250, reply }, 'accepted');
            callback(null, reply);
          },
          (err: unknown) => callback(refuse(session, 'DATA', err)),
        )
        // the stream has ended, so smtp-server has written the reply: the deadlines apply again
        .finally(() => deadlines.replied(session.id));
    },
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
      closing = true; // new connections are told 421 from here on
      const deadline = Date.now() + options.closeTimeoutMs;
      while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // A transaction the close cut off leaves a partial write, which "abandoned before the commit
      // leaves nothing" (docs/design.md §10) has it delete: the process must not exit first.
      const settleBy = Date.now() + DISCARD_SETTLE_MS;
      while ((inFlight > 0 || discards.size > 0) && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 20));
    },
  };
}
