// The second wall behind escaping: every admin page is served with a Content-Security-Policy
// that runs no inline script, so one escaping slip cannot run a stranger's script in an
// operator's session. Scripts only from this origin (the queue dashboard's bundles are files;
// its one inline <script> is JSON data, type="application/json", which a browser never runs).
// Styles may be inline: the pages carry their own <style>, and the dashboard sets style
// attributes; CSS cannot run script. No framing (clickjacking the replay button), forms post here.
import type { FastifyReply, FastifyRequest } from 'fastify';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'", // the queue dashboard sets <base href> to its own path
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** An onSend hook: the policy on every response of the plugin it is added to. */
export async function withContentSecurity(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  void reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
  void reply.header('x-content-type-options', 'nosniff');
  return payload;
}
