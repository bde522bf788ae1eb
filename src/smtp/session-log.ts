// Each SMTP session's log (a pino child naming the session and the client) and its refusals:
// every hook that refuses logs and counts the refusal here, with the reply reply.ts makes.
import type { SMTPServerSession } from 'smtp-server';
import { IntakeError } from '../errors.js';
import type { IntakeObserver } from '../intake/observer.js';
import type { Logger } from '../log.js';
import { replyFor } from './reply.js';

export class SessionLogs {
  readonly #logs = new Map<string, Logger>();

  constructor(
    private readonly logger: Logger,
    private readonly observer: IntakeObserver,
  ) {}

  /** Starts the session's log (onConnect). */
  open(session: SMTPServerSession): void {
    this.#logs.set(session.id, this.logger.child({ smtpSession: session.id, clientIp: session.remoteAddress }));
  }

  /** Ends the session's log (onClose). */
  close(session: SMTPServerSession): void {
    this.#logs.delete(session.id);
  }

  /** The session's log; the listener's own for a session never opened. */
  of(session: SMTPServerSession): Logger {
    return this.#logs.get(session.id) ?? this.logger;
  }

  /** Logs and counts a refusal of `command`, and answers the reply smtp-server is to send. */
  refuse(session: SMTPServerSession, command: string, err: unknown): Error {
    const reply = replyFor(err, session.id);
    const intakeId = err instanceof IntakeError ? err.intakeId : undefined;
    if (!(err instanceof IntakeError) || err.code === 'Unexpected') {
      // a fault of ours, answered 451 (try later): it needs a look
      this.of(session).error({ err, event: 'smtp.unexpected', command, intakeId }, 'unexpected error, answered 451');
    }
    this.observer.smtpReply(reply.responseCode, command);
    // the reply names no internal detail; the error, under the reply's reference, is kept here
    const detail = err instanceof IntakeError && (err.code === 'StorageUnavailable' || err.code === 'ReplicasBehind') ? { err } : {};
    this.of(session).info(
      { event: 'smtp.refused', command, code: reply.responseCode, reply: reply.message, intakeId, ...detail },
      'refused',
    );
    return reply;
  }
}
