// The signed-in user's security pages: two-factor sign-in with an authenticator app (a QR code and
// the same otpauth:// URI as text, a code to verify, the password again, then backup codes shown
// once) and the active sessions, with sign-out everywhere.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import QRCode from 'qrcode';
import {
  clearSessionCookie,
  csrfToken,
  field,
  html,
  originOf,
  type PortalContext,
  type SignedIn,
  setSessionCookie,
  setSignedIn,
  viewerOf,
} from './context.js';
import { csrfField, esc, isoTime } from './html.js';
import { verifyPassword } from './passwords.js';
import { tooMany } from './routes-sign-in.js';
import { clientNetwork } from './throttle.js';
import { acceptTotp, backupCodeHash, newBackupCodes, newTotpSecret, totpUri } from './totp.js';

export function securityRoutes(ctx: PortalContext, full: (request: FastifyRequest) => SignedIn) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/portal/security/totp', async (request, reply) => {
      const who = full(request);
      if (who.user.totpSecret !== undefined) {
        return html(
          reply,
          200,
          'Two-factor sign-in',
          `<p>Two-factor sign-in is <strong>on</strong>: after your password, the portal asks for a code from your app (or an e-mailed code, or a backup code). You have ${who.user.backupCodes.length} unused backup codes.</p>`,
          viewerOf(ctx, request, reply),
        );
      }
      let secret = who.user.totpPending;
      if (secret === undefined) {
        secret = newTotpSecret();
        await ctx.users.setTotpPending(who.user.userId, secret);
      }
      return totpSetupPage(ctx, request, reply, who, secret, 200, '');
    });

    app.post('/portal/security/totp', async (request, reply) => {
      const who = full(request);
      const secret = who.user.totpPending;
      if (who.user.totpSecret !== undefined || secret === undefined) return reply.redirect('/portal/security/totp', 303);
      // The password asked again is guessing like a sign-in's: counted with the second factor's tries.
      const network = clientNetwork(originOf(request).ip);
      const gate = await ctx.throttle.take([
        ['factor', who.user.userId],
        ['network', network],
      ]);
      if (!gate.ok) return tooMany(ctx, request, reply, gate);
      const passwordRight = await verifyPassword(field(request.body, 'password'), who.user.passwordHash);
      const codeRight =
        passwordRight && (await acceptTotp(ctx.redis, ctx.keys, who.user.userId, secret, field(request.body, 'code').trim(), ctx.clock()));
      if (!codeRight) {
        await ctx.audit({ action: 'two-factor setup failed', userId: who.user.userId, email: who.user.email, ip: request.ip });
        return totpSetupPage(
          ctx,
          request,
          reply,
          who,
          secret,
          400,
          'The password or the code is wrong. Check the time on your phone, and try the next code.',
        );
      }
      await ctx.throttle.clear('factor', who.user.userId);
      await ctx.throttle.giveBack('network', network);
      const codes = newBackupCodes();
      await ctx.users.enableTotp(who.user.userId, secret, codes.map(backupCodeHash));
      // A factor change: a new session id for this browser.
      const session = await ctx.sessions.create(who.user.userId, 'full', originOf(request), who.session.hash);
      setSessionCookie(reply, session.id);
      setSignedIn(request, { ...who, id: session.id, session: { ...who.session, hash: session.hash } });
      await ctx.audit({ action: 'two-factor sign-in enabled (TOTP)', userId: who.user.userId, email: who.user.email, ip: request.ip });
      return html(
        reply,
        200,
        'Two-factor sign-in is on',
        `<p>Keep these backup codes somewhere safe. Each works once, in place of a code from your app. They are shown only now.</p>
<ul class="codes">${codes.map((c) => `<li>${c}</li>`).join('')}</ul>
<p><a href="/portal/intakes">Continue to your intakes</a></p>`,
        viewerOf(ctx, request, reply),
      );
    });

    app.get('/portal/sessions', async (request, reply) => {
      const who = full(request);
      const sessions = await ctx.sessions.list(who.user.userId);
      const rows = sessions
        .map(
          (s) =>
            `<tr><td>${isoTime(s.createdAt)}</td><td>${isoTime(s.lastSeenAt)}</td><td>${esc(s.ip)}</td><td>${esc(browserOf(s.userAgent))}</td><td>${s.hash === who.session.hash ? 'this browser' : ''}</td></tr>`,
        )
        .join('');
      return html(
        reply,
        200,
        'Active sessions',
        `<p>A session ends after 12 hours without activity.</p>
<table class="sessions"><thead><tr><th scope="col">Signed in (UTC)</th><th scope="col">Last activity (UTC)</th><th scope="col">From</th><th scope="col">Browser</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table>
<form method="post" action="/portal/sessions/logout-all">${csrfField(csrfToken(ctx, request, reply))}<button type="submit">Sign out everywhere</button></form>`,
        viewerOf(ctx, request, reply),
      );
    });

    app.post('/portal/sessions/logout-all', async (request, reply) => {
      const who = full(request);
      const ended = await ctx.sessions.endAll(who.user.userId);
      clearSessionCookie(reply);
      await ctx.audit({
        action: 'signed out everywhere',
        userId: who.user.userId,
        email: who.user.email,
        ip: request.ip,
        detail: `${ended} sessions`,
      });
      return reply.redirect('/portal/login?signed-out=1', 303);
    });
  };
}

async function totpSetupPage(
  ctx: PortalContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: SignedIn,
  secret: string,
  status: number,
  problem: string,
): Promise<FastifyReply> {
  const uri = totpUri(secret, who.user.email);
  // An SVG in a data: URL: no script, nothing fetched from another host (the CSP allows img data:).
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
  return html(
    reply,
    status,
    'Two-factor sign-in',
    `${problem === '' ? '' : `<p class="error" role="alert">${esc(problem)}</p>`}
<p>Scan this code with an authenticator app (any app that supports TOTP), or type the key below into it.</p>
<img class="qr" src="${src}" alt="QR code of the otpauth:// address below">
<p>Key: <code class="secret">${esc(secret)}</code></p>
<p>Address: <span class="uri">${esc(uri)}</span></p>
<form method="post" action="/portal/security/totp">${csrfField(csrfToken(ctx, request, reply))}
<label for="code">The code your app shows now</label><input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<label for="password">Your password, again</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Turn on two-factor sign-in</button></form>`,
    viewerOf(ctx, request, reply),
  );
}

/** "Chrome 131 on Linux": enough to recognise a device in the list. */
export function browserOf(userAgent: string): string {
  const browser =
    /(Edg|Firefox|Chrome|Chromium|HeadlessChrome|Safari)\/(\d+)/.exec(userAgent)?.slice(1, 3).join(' ') ??
    (userAgent.slice(0, 40) || 'unknown');
  const system = /(Windows|Android|iPhone|iPad|Mac OS X|Linux)/.exec(userAgent)?.[1];
  return system === undefined ? browser : `${browser} on ${system}`;
}
