// Signing in (the contract's §5 and OWASP's Authentication Cheat Sheet): e-mail address and
// password, then, when two-factor sign-in is on, a code (TOTP, e-mail code or backup code). The
// same answer, in the same time, for an unknown address as for a wrong password; a new session id
// at each step; guessing throttled per account and per client network (429 with when to retry).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clearSessionCookie, csrfToken, field, html, originOf, type PortalContext, setSessionCookie, waitText, whoIs } from './context.js';
import { csrfField, esc } from './html.js';
import { hashPassword, MIN_PASSWORD_CHARS, passwordProblem, verifyPassword } from './passwords.js';
import { clientNetwork, type Gate } from './throttle.js';
import { acceptTotp, backupCodeHash } from './totp.js';

const WRONG = 'The e-mail address or the password is wrong.';

export function signInRoutes(ctx: PortalContext) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/portal', async (request, reply) =>
      reply.redirect(whoIs(request)?.session.stage === 'full' ? '/portal/intakes' : '/portal/login'),
    );

    app.get('/portal/login', async (request, reply) => loginPage(ctx, request, reply, 200, notice(request)));

    app.post('/portal/login', async (request, reply) => {
      const email = field(request.body, 'email').trim().toLowerCase();
      const password = field(request.body, 'password');
      const origin = originOf(request);
      const network = clientNetwork(origin.ip);
      const account = `${email}|${network}`;
      const gate = await ctx.throttle.take([
        ['account', account],
        ['network', network],
      ]);
      if (!gate.ok) {
        await ctx.audit({ action: 'sign-in throttled', email, ip: origin.ip });
        return tooMany(ctx, request, reply, gate);
      }
      const user = await ctx.users.byEmail(email);
      // verifyPassword always does the full work (a dummy hash for an unknown address)
      const right = await verifyPassword(password, user?.passwordHash);
      if (!right || user === undefined || user.disabled) {
        await ctx.audit({ action: 'sign-in failed', email, ip: origin.ip, userId: user?.userId });
        return loginPage(ctx, request, reply, 401, `<p class="error" role="alert">${WRONG}</p>`);
      }
      await ctx.throttle.clear('account', account);
      await ctx.throttle.giveBack('network', network);
      const stage = user.totpSecret === undefined ? 'full' : 'password';
      const session = await ctx.sessions.create(user.userId, stage, origin, whoIs(request)?.session.hash);
      setSessionCookie(reply, session.id);
      await ctx.audit({
        action: stage === 'full' ? 'signed in (password)' : 'password accepted, second factor due',
        userId: user.userId,
        email: user.email,
        senderId: user.senderId,
        ip: origin.ip,
        detail: session.hash.slice(0, 12),
      });
      return reply.redirect(stage === 'full' ? '/portal/intakes' : '/portal/login/code', 303);
    });

    app.get('/portal/login/code', async (request, reply) => {
      const who = whoIs(request);
      if (who?.session.stage !== 'password') return reply.redirect('/portal/login');
      return codePage(ctx, request, reply, 200, '');
    });

    app.post('/portal/login/code', async (request, reply) => {
      const who = whoIs(request);
      if (who?.session.stage !== 'password') return reply.redirect('/portal/login', 303);
      const origin = originOf(request);
      const network = clientNetwork(origin.ip);
      const gate = await ctx.throttle.take([
        ['factor', who.user.userId],
        ['network', network],
      ]);
      if (!gate.ok) return tooMany(ctx, request, reply, gate);
      const code = field(request.body, 'code').trim();
      const how = await secondFactor(ctx, who.user.userId, who.user.totpSecret, who.session.hash, code);
      if (how === undefined) {
        await ctx.audit({ action: 'second factor failed', userId: who.user.userId, email: who.user.email, ip: origin.ip });
        return codePage(ctx, request, reply, 401, '<p class="error" role="alert">The code is wrong or was used already.</p>');
      }
      await ctx.throttle.clear('factor', who.user.userId);
      await ctx.throttle.giveBack('network', network);
      const session = await ctx.sessions.create(who.user.userId, 'full', origin, who.session.hash);
      setSessionCookie(reply, session.id);
      await ctx.audit({
        action: `signed in (password and ${how})`,
        userId: who.user.userId,
        email: who.user.email,
        senderId: who.user.senderId,
        ip: origin.ip,
        detail: session.hash.slice(0, 12),
      });
      return reply.redirect('/portal/intakes', 303);
    });

    app.post('/portal/login/email-code', async (request, reply) => {
      const who = whoIs(request);
      if (who?.session.stage !== 'password') return reply.redirect('/portal/login', 303);
      if (ctx.sendMail === undefined)
        return codePage(ctx, request, reply, 409, '<p class="error">E-mail codes are not available here.</p>');
      const origin = originOf(request);
      const gate = await ctx.throttle.take([['emailSend', who.user.userId]]);
      if (!gate.ok) return tooMany(ctx, request, reply, gate);
      const code = await ctx.emailCodes.issue(who.session.hash);
      try {
        await ctx.sendMail(
          who.user.email,
          'Your sign-in code for the letter portal',
          `Your sign-in code is ${code}. It works for 10 minutes.\nIf you did not try to sign in, change your password: someone knows it.\n`,
        );
      } catch (err) {
        ctx.logger.warn({ err, event: 'portal.email_code_unsent' }, 'the e-mail code could not be sent');
        return codePage(
          ctx,
          request,
          reply,
          503,
          '<p class="error" role="alert">The code could not be sent; try again later or use your app.</p>',
        );
      }
      await ctx.audit({ action: 'e-mail code sent', userId: who.user.userId, email: who.user.email, ip: origin.ip });
      return codePage(ctx, request, reply, 200, `<p role="status">A code was sent to ${esc(who.user.email)}.</p>`);
    });

    app.post('/portal/logout', async (request, reply) => {
      const who = whoIs(request);
      if (who !== undefined) {
        await ctx.sessions.end(who.session.hash);
        await ctx.audit({ action: 'signed out', userId: who.user.userId, email: who.user.email, ip: request.ip });
      }
      clearSessionCookie(reply);
      return reply.redirect('/portal/login?signed-out=1', 303);
    });

    app.get('/portal/set-password', async (request, reply) => {
      const token = queryText(request, 'token');
      const user = await ctx.users.invited(token);
      if (user === undefined) return expiredLink(reply);
      return setPasswordPage(ctx, request, reply, 200, token, user.email, '');
    });

    app.post('/portal/set-password', async (request, reply) => {
      const token = field(request.body, 'token');
      const password = field(request.body, 'password');
      const problem = passwordProblem(password, field(request.body, 'confirm'));
      const invited = await ctx.users.invited(token);
      if (invited === undefined) return expiredLink(reply);
      if (problem !== undefined) return setPasswordPage(ctx, request, reply, 400, token, invited.email, problem);
      const user = await ctx.users.setPassword(token, await hashPassword(password));
      if (user === undefined) return expiredLink(reply);
      // A password change ends every session: each device signs in again with the new one.
      const ended = await ctx.sessions.endAll(user.userId);
      clearSessionCookie(reply);
      await ctx.audit({
        action: 'password set',
        userId: user.userId,
        email: user.email,
        ip: request.ip,
        detail: `${ended} sessions ended`,
      });
      return reply.redirect('/portal/login?password-set=1', 303);
    });
  };
}

/** TOTP, an e-mail code or a backup code: which one matched, or undefined. */
async function secondFactor(
  ctx: PortalContext,
  userId: string,
  secret: string | undefined,
  sessionHash: string,
  code: string,
): Promise<string | undefined> {
  if (secret !== undefined && /^\d{6}$/.test(code) && (await acceptTotp(ctx.redis, ctx.keys, userId, secret, code, ctx.clock())))
    return 'TOTP';
  if (/^\d{6}$/.test(code) && (await ctx.emailCodes.accept(sessionHash, code))) return 'e-mail code';
  if (/^\d{5}-?\d{5}$/.test(code) && (await ctx.users.useBackupCode(userId, backupCodeHash(code)))) return 'backup code';
  return undefined;
}

function queryText(request: FastifyRequest, name: string): string {
  return field(request.query, name);
}

function notice(request: FastifyRequest): string {
  if (queryText(request, 'password-set') === '1') return '<p role="status">Your password is set. Sign in with it.</p>';
  if (queryText(request, 'signed-out') === '1') return '<p role="status">You are signed out.</p>';
  return '';
}

function loginPage(ctx: PortalContext, request: FastifyRequest, reply: FastifyReply, status: number, message: string): FastifyReply {
  return html(
    reply,
    status,
    'Sign in',
    `${message}<form method="post" action="/portal/login">${csrfField(csrfToken(ctx, request, reply))}
<label for="email">E-mail address</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<p>No account, or a forgotten password? Your gateway's operator sends you a link to set one.</p>`,
  );
}

function codePage(ctx: PortalContext, request: FastifyRequest, reply: FastifyReply, status: number, message: string): FastifyReply {
  const token = csrfToken(ctx, request, reply);
  const emailForm =
    ctx.sendMail === undefined
      ? ''
      : `<form method="post" action="/portal/login/email-code">${csrfField(token)}<button type="submit">Send me a code by e-mail instead</button></form>`;
  return html(
    reply,
    status,
    'Second step',
    `${message}<form method="post" action="/portal/login/code">${csrfField(token)}
<label for="code">Code from your authenticator app, an e-mailed code or a backup code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Continue</button></form>${emailForm}`,
  );
}

function setPasswordPage(
  ctx: PortalContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  token: string,
  email: string,
  problem: string,
): FastifyReply {
  return html(
    reply,
    status,
    'Set your password',
    `${problem === '' ? '' : `<p class="error" role="alert">${esc(problem)}</p>`}
<p>For ${esc(email)}. At least ${MIN_PASSWORD_CHARS} characters; a passphrase of several words is best.</p>
<form method="post" action="/portal/set-password">${csrfField(csrfToken(ctx, request, reply))}
<input type="hidden" name="token" value="${esc(token)}">
<input type="hidden" name="email" value="${esc(email)}" autocomplete="username">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_CHARS}" required>
<label for="confirm">The same again</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_CHARS}" required>
<button type="submit">Set password</button></form>`,
  );
}

function expiredLink(reply: FastifyReply): FastifyReply {
  return html(
    reply,
    410,
    'This link does not work',
    "<p>The link was used already, has expired (links work for 24 hours) or is not ours. Ask your gateway's operator for a new one.</p>",
  );
}

export function tooMany(
  ctx: PortalContext,
  _request: FastifyRequest,
  reply: FastifyReply,
  gate: Extract<Gate, { ok: false }>,
): FastifyReply {
  const seconds = Math.ceil(gate.retryAfterMs / 1000);
  const at = new Date(ctx.clock() + gate.retryAfterMs).toISOString().slice(11, 16);
  reply.header('retry-after', String(seconds));
  return html(
    reply,
    429,
    'Too many attempts',
    `<p role="alert">There were too many attempts. Try again ${waitText(gate.retryAfterMs)} (after ${at} UTC).</p>`,
  );
}
