// Deadlines a client cannot keep moving: the idle time-out (socketTimeout) restarts with every
// byte, so a client that sends one now and then would hold its connection slot and its memory
// reservation for ever. DATA must be complete within its deadline, and the session ends at its
// own, busy or not (docs/design.md §4). Past either the client is told 421 4.4.2 and the
// connection closes; a message in the middle of its DATA is then abandoned like one whose client
// went away (nothing was promised). A message whose DATA has ended may be accepted whatever the
// clock says, so from its last byte until its reply is sent no deadline ends the session; one
// that passed meanwhile ends it right after that reply.

export interface DeadlineLimits {
  readonly dataTimeoutMs: number;
  readonly sessionTimeoutMs: number;
}

export type Deadline = 'data' | 'session';

/** Ends a connection: sends the one 421 line and closes (smtp-server closes after any 421). */
export type HangUp = (deadline: Deadline, reply: string) => void;

// RFC 5321 §4.2.2 421 service not available, closing channel; RFC 3463 4.4.2 bad connection.
const REPLIES: Record<Deadline, string> = {
  data: '4.4.2 DATA took too long, closing connection',
  session: '4.4.2 session took too long, closing connection',
};

interface Timers {
  readonly hangUp: HangUp;
  readonly session: NodeJS.Timeout;
  data?: NodeJS.Timeout;
  /** A message is between its last byte and its reply. */
  held: boolean;
  /** The deadline that passed while held. */
  due?: Deadline;
}

export class SessionDeadlines {
  private readonly open = new Map<string, Timers>();

  constructor(private readonly limits: DeadlineLimits) {}

  /** A connection opened: its session deadline starts now. */
  start(sessionId: string, hangUp: HangUp): void {
    const session = setTimeout(() => this.expire(sessionId, 'session'), this.limits.sessionTimeoutMs);
    session.unref();
    this.open.set(sessionId, { hangUp, session, held: false });
  }

  /** DATA began (354 sent): the message must be complete within the DATA deadline. */
  dataStarted(sessionId: string): void {
    const timers = this.open.get(sessionId);
    if (timers === undefined) return;
    clearTimeout(timers.data);
    timers.data = setTimeout(() => this.expire(sessionId, 'data'), this.limits.dataTimeoutMs);
    timers.data.unref();
  }

  /** The message's last byte arrived: what follows (authentication, storing) has its own bounds, and no deadline cuts it short. */
  dataEnded(sessionId: string): void {
    const timers = this.open.get(sessionId);
    if (timers === undefined) return;
    clearTimeout(timers.data);
    delete timers.data;
    timers.held = true;
  }

  /** The message's reply was sent: a deadline that passed meanwhile ends the session now. */
  replied(sessionId: string): void {
    const timers = this.open.get(sessionId);
    if (timers === undefined) return;
    timers.held = false;
    if (timers.due !== undefined) this.expire(sessionId, timers.due);
  }

  /** The connection closed, for whatever reason. */
  end(sessionId: string): void {
    const timers = this.open.get(sessionId);
    if (timers === undefined) return;
    clearTimeout(timers.session);
    clearTimeout(timers.data);
    this.open.delete(sessionId);
  }

  private expire(sessionId: string, deadline: Deadline): void {
    const timers = this.open.get(sessionId);
    if (timers === undefined) return;
    if (timers.held) {
      timers.due = deadline;
      return;
    }
    this.end(sessionId);
    timers.hangUp(deadline, REPLIES[deadline]);
  }
}
