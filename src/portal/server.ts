// The sender portal's HTTP server: its own listener (PORTAL_PORT), apart from the ops server,
// since senders reach it from the internet. Server-rendered pages, no script. Every request:
// security headers (a CSP without script, frame-ancestors 'none'), the session read from its
// cookie (and extended), every POST's CSRF token checked before its body is read, and every page
// but the sign-in ones behind a full sign-in.
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyRequest, LogController } from 'fastify';
import {
  clearSessionCookie,
  csrfBinding,
  field,
  html,
  type PortalContext,
  SESSION_COOKIE,
  type SignedIn,
  setSignedIn,
  whoIs,
} from './context.js';
import { STYLE } from './html.js';
import { securityRoutes } from './routes-security.js';
import { selfTestRoutes } from './routes-self-tests.js';
import { senderRoutes } from './routes-sender.js';
import { signInRoutes } from './routes-sign-in.js';
import { uploadRoutes } from './routes-upload.js';

export interface PortalServerOptions {
  readonly host: string;
  readonly port: number;
  /** Proxies whose X-Forwarded-For names the client (none: the socket's address). */
  readonly trustedProxies: readonly string[];
}

export interface PortalServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Paths served without a full sign-in. */
const OPEN_PATHS = new Set([
  '/portal',
  '/portal/login',
  '/portal/login/code',
  '/portal/login/email-code',
  '/portal/logout',
  '/portal/set-password',
  '/portal/style.css',
]);

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'cross-origin-opener-policy': 'same-origin',
} as const;

/** Request lines are not logged (the audit log says what matters); errors are. */
class QuietRequests extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(): void {}
}

export async function startPortalServer(ctx: PortalContext, options: PortalServerOptions): Promise<PortalServer> {
  const trusted = options.trustedProxies;
  const app = Fastify({
    loggerInstance: ctx.logger.child({ component: 'portal-http' }),
    logController: new QuietRequests(),
    trustProxy: trusted.length > 0 ? [...trusted] : false,
    bodyLimit: 64 * 1024,
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: ctx.maxPdfBytes + 1, files: ctx.maxPdfs, fields: 10, fieldSize: 64 * 1024, parts: ctx.maxPdfs + 10 },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.headers(SECURITY_HEADERS);
    const id = request.cookies[SESSION_COOKIE];
    if (id === undefined || id === '') return;
    const session = await ctx.sessions.touch(id);
    const user = session === undefined ? undefined : await ctx.users.get(session.userId);
    if (session === undefined || user === undefined || user.disabled) {
      if (session !== undefined) await ctx.sessions.end(session.hash);
      clearSessionCookie(reply);
      return;
    }
    setSignedIn(request, { id, session, user, sender: ctx.directory.bySenderId(user.senderId) });
  });

  app.addHook('preHandler', async (request, reply) => {
    if (request.method === 'POST') {
      // A multipart body is not read yet here: its token comes in the form action's query.
      const given = request.isMultipart() ? field(request.query, '_csrf') : field(request.body, '_csrf') || field(request.query, '_csrf');
      if (!ctx.csrf.valid(csrfBinding(request, reply), given)) {
        ctx.logger.info({ event: 'portal.csrf_refused', url: request.url }, 'a POST without a valid CSRF token');
        return html(
          reply.header('connection', 'close'),
          403,
          'Refused',
          '<p>This form has expired or did not come from this site. Go back, reload the page and send it again.</p>',
        );
      }
    }
    const path = request.url.split('?')[0] ?? '';
    if (!OPEN_PATHS.has(path) && whoIs(request)?.session.stage !== 'full') return reply.redirect('/portal/login', 303);
    return undefined;
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, request, reply) => {
    const status = err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) request.log.error({ err, event: 'portal.error', url: request.url }, 'portal request failed');
    else request.log.info({ event: 'portal.refused', url: request.url, status, code: err.code }, 'portal request refused');
    const text =
      status === 413 || err.code === 'FST_FILES_LIMIT' || err.code === 'FST_PARTS_LIMIT'
        ? `Too much was sent: at most ${ctx.maxPdfs} PDFs.`
        : status === 500
          ? 'Something went wrong on our side; try again in a moment.'
          : 'The request could not be read.';
    return html(reply, status === 500 ? 500 : status, 'Not done', `<p class="error">${text}</p>`);
  });

  app.setNotFoundHandler((_request, reply) =>
    html(reply, 404, 'Not found', '<p>There is no such page. <a href="/portal">Start again</a>.</p>'),
  );

  app.get('/portal/style.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'max-age=3600').send(STYLE),
  );

  const full = (request: FastifyRequest): SignedIn => {
    const who = whoIs(request);
    // the preHandler redirected every request without a full sign-in
    if (who === undefined || who.session.stage !== 'full') throw Object.assign(new Error('not signed in'), { statusCode: 401 });
    return who;
  };
  await app.register(signInRoutes(ctx));
  await app.register(securityRoutes(ctx, full));
  await app.register(senderRoutes(ctx, full));
  await app.register(selfTestRoutes(ctx, full));
  await app.register(uploadRoutes(ctx, full));

  await app.listen({ host: options.host, port: options.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const host =
    options.host === '0.0.0.0' || options.host === '' ? '127.0.0.1' : options.host.includes(':') ? `[${options.host}]` : options.host;
  return { url: `http://${host}:${port}`, port, close: () => app.close() };
}
