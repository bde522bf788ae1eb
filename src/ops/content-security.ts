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

/**
 * A sender's PDF opened inline: no script of ours runs on it, nothing frames it, and the browser's
 * PDF viewer (which Chromium embeds as a plugin, so `object-src 'none'` would block it) may show it.
 */
export const PDF_CONTENT_SECURITY_POLICY = "default-src 'none'; object-src 'self'; frame-ancestors 'none'";

/** An onSend hook: the policy on every response of the plugin it is added to. */
export async function withContentSecurity(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  const pdf = String(reply.getHeader('content-type') ?? '').startsWith('application/pdf');
  void reply.header('content-security-policy', pdf ? PDF_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY);
  void reply.header('x-content-type-options', 'nosniff');
  return payload;
}
