// Replaces: smtp-server 3.21.6's private SMTPConnection#_validateMailParams reply text for an
// over-size `MAIL FROM … SIZE=` (its own reply is a 552 without an enhanced code), per connection.
// Proved by: test/integration/smtp-listener.test.ts ("refuses a declared SIZE over the cap at
// MAIL FROM with 552 5.3.4"). smtp-server has no hook for this reply: the wrapper keeps its
// validation and changes only the 552's text.

interface ParamError {
  readonly code: number;
  readonly message: string;
}

/** The part of smtp-server's connection this wraps (private in smtp-server, typed by its d.ts). */
interface MailParamsValidator<P, E extends ParamError> {
  _validateMailParams(parsed: P): E | null;
}

/** From now on, `connection`'s 552 for a declared SIZE over `limit` carries RFC 3463's 5.3.4. */
export function enhanceSizeReply<P, E extends ParamError>(connection: MailParamsValidator<P, E>, limit: number | undefined): void {
  const validate = connection._validateMailParams.bind(connection);
  connection._validateMailParams = (parsed) => {
    const error = validate(parsed);
    // RFC 1870 §6.1: 552 when the declared SIZE exceeds the fixed maximum; RFC 3463 5.3.4.
    return error?.code === 552 ? { ...error, message: `5.3.4 message size exceeds the maximum of ${limit} bytes` } : error;
  };
}
