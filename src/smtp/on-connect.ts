// Connection admission: each client network's count of open connections, and the 421 a new
// connection gets while the listener closes or once its network is over MAX_CLIENTS_PER_IP.
// onClose counts a connection down and ends its deadlines and its log.
import type { SMTPServerSession } from 'smtp-server';
import { IntakeError } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import { networkOf } from '../net/client-network.js';
import type { SessionDeadlines } from './session-deadlines.js';
import type { SessionLogs } from './session-log.js';

/** The per-address cap counts IPv4 clients per address and IPv6 clients per /64 (one site's subnet). */
const PER_ADDRESS_NETWORKS = { v4Bits: 32, v6Bits: 64 } as const;

export interface AdmissionDeps {
  readonly maxClientsPerIp: number;
  readonly observer: IntakeObserver;
  readonly logs: SessionLogs;
  readonly deadlines: SessionDeadlines;
}

export interface Admission {
  onConnect(session: SMTPServerSession, callback: (err?: Error | null) => void): void;
  onClose(session: SMTPServerSession): void;
  /** From now on a new connection is told 421 (the listener is closing). */
  refuseNewConnections(): void;
}

export function connectionAdmission(deps: AdmissionDeps): Admission {
  const perIp = new Map<string, number>();
  /** Sessions counted in perIp, by id: only these are counted down when they close. */
  const counted = new Map<string, string>();
  let closing = false;
  return {
    onConnect(session, callback) {
      deps.observer.smtpConnection();
      // one client is counted once: an IPv4-mapped address as IPv4 (per /32), IPv6 per /64
      const network = networkOf(session.remoteAddress, PER_ADDRESS_NETWORKS);
      const count = (perIp.get(network) ?? 0) + 1;
      perIp.set(network, count);
      counted.set(session.id, network);
      deps.logs.open(session);
      if (closing) {
        return callback(deps.logs.refuse(session, 'CONNECT', new IntakeError('ShuttingDown', 'service shutting down, try again later')));
      }
      if (count > deps.maxClientsPerIp) {
        const refusal = new IntakeError('TooManyConnections', 'too many connections from your address, try again later');
        return callback(deps.logs.refuse(session, 'CONNECT', refusal));
      }
      callback();
    },

    onClose(session) {
      // smtp-server also closes connections that never reached onConnect (over maxClients, gone
      // before the greeting): counting those down would wear the per-IP cap away.
      deps.deadlines.end(session.id);
      const network = counted.get(session.id);
      counted.delete(session.id);
      deps.logs.close(session);
      if (network === undefined) return;
      const count = (perIp.get(network) ?? 1) - 1;
      if (count <= 0) perIp.delete(network);
      else perIp.set(network, count);
    },

    refuseNewConnections() {
      closing = true;
    },
  };
}
