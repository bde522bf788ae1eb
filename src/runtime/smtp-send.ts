// One message over SMTP for the CLI's `send`: nodemailer's transport to the listener, its final
// reply as text, and a refused connection said as a question whether `npm start` runs.
import { createTransport } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';

export interface SendOutcome {
  readonly accepted: boolean;
  /** The server's final reply line, e.g. "250 2.0.0 queued as in…". */
  readonly text: string;
}

export async function sendOverSmtp(
  target: { readonly host: string; readonly port: number; readonly dkim?: SMTPTransport.Options['dkim'] },
  mail: Mail.Options,
): Promise<SendOutcome> {
  const transport = createTransport({
    host: target.host,
    port: target.port,
    secure: false,
    ignoreTLS: true,
    name: 'letter-intake-send',
    ...(target.dkim === undefined ? {} : { dkim: target.dkim }),
  });
  try {
    const info = await transport.sendMail(mail);
    return { accepted: true, text: info.response };
  } catch (err) {
    const response = err instanceof Error && 'response' in err && typeof err.response === 'string' ? err.response : undefined;
    const text = err instanceof Error ? err.message : String(err);
    const refused = response === undefined && text.includes('ECONNREFUSED');
    return {
      accepted: false,
      text: refused ? `no SMTP listener at ${target.host}:${target.port} (${text}): is \`npm start\` running?` : (response ?? text),
    };
  } finally {
    transport.close();
  }
}
