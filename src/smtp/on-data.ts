// DATA: one message from the envelope to its reply. receiveMessage (receive-message.ts) takes
// the bytes, authenticates, applies the message's rules and hands the message to `receive.accept`,
// which is durable acceptance (intake/accept.ts: the raw store, the record and the job, then 250).
// Here: the envelope as the session holds it, the count of messages in flight (close() waits for
// them), the DATA deadline, and the reply with its log line.
import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { IntakeObserver } from '../intake/observer.js';
import { type Envelope, type ReceiveDeps, receiveMessage } from './receive-message.js';
import { acceptedReply } from './reply.js';
import type { SessionDeadlines } from './session-deadlines.js';
import type { SessionLogs } from './session-log.js';

export interface DataDeps {
  readonly receive: ReceiveDeps;
  readonly observer: IntakeObserver;
  readonly logs: SessionLogs;
  readonly deadlines: SessionDeadlines;
}

export interface DataHandler {
  onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback: (err?: Error | null, message?: string) => void): void;
  /** Messages between the start of their DATA and their reply. */
  readonly inFlight: number;
}

export function dataHandler(deps: DataDeps): DataHandler {
  let inFlight = 0;
  return {
    get inFlight() {
      return inFlight;
    },

    onData(stream, session, callback) {
      const envelope: Envelope = {
        mailFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
        rcptTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
        clientIp: session.remoteAddress,
        helo: session.hostNameAppearsAs,
      };
      inFlight += 1;
      deps.deadlines.dataStarted(session.id);
      stream.once('end', () => deps.deadlines.dataEnded(session.id));
      receiveMessage(deps.receive, stream, envelope)
        .finally(() => {
          inFlight -= 1;
        })
        .then(
          ({ intakeId, duplicate, reply: own }) => {
            const reply = own ?? acceptedReply(intakeId);
            deps.observer.smtpReply(250, 'DATA');
            deps.logs.of(session).info({ event: 'smtp.accepted', intakeId, duplicate, code: 250, reply }, 'accepted');
            callback(null, reply);
          },
          (err: unknown) => callback(deps.logs.refuse(session, 'DATA', err)),
        )
        // the stream has ended, so smtp-server has written the reply: the deadlines apply again
        .finally(() => deps.deadlines.replied(session.id));
    },
  };
}
