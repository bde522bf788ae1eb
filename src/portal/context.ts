// What every portal route shares: the stores, the signed-in person of a request (read once by the
// server's onRequest hook), cookies, CSRF tokens and the page helpers.
import { randomBytes } from 'node:crypto';
import type {} from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/connections.js';
import type { Sender, SenderDirectory } from '../senders/directory.js';
import type { Audit } from './audit.js';
import type { Csrf } from './csrf.js';
import type { EmailCodes, SendMail } from './email-code.js';
import type { FormTokens } from './form-tokens.js';
import { layout, type Viewer } from './html.js';
import type { PortalKeys } from './keys.js';
import type { LetterStatusOf } from './letter-status.js';
import type { SenderIntakes } from './sender-intakes.js';
import type { SenderSelfTests } from './sender-self-tests.js';
import { type PortalSession, type PortalSessions, SESSION_IDLE_MS } from './sessions.js';
import type { PortalThrottle } from './throttle.js';
import type { Upload, UploadOutcome } from './upload.js';
import type { PortalUser, PortalUsers } from './users.js';

export const SESSION_COOKIE = 'portal_sid';
export const PRE_COOKIE = 'portal_pre';

export interface PortalContext {
  readonly redis: RedisClient;
  readonly keys: PortalKeys;
  readonly users: PortalUsers;
  readonly sessions: PortalSessions;
  readonly throttle: PortalThrottle;
  readonly csrf: Csrf;
  readonly audit: Audit;
  readonly emailCodes: EmailCodes;
  /** Sends an e-mail code; absent when NOTICE_SMTP_URL is unset (then only TOTP and backup codes). */
  readonly sendMail: SendMail | undefined;
  readonly formTokens: FormTokens;
  readonly directory: SenderDirectory;
  readonly intakes: SenderIntakes;
  readonly letterStatus: LetterStatusOf;
  /** The sender's self-test reports; absent when the gateway has no self-test address. */
  readonly selfTests?: SenderSelfTests | undefined;
  readonly upload: (upload: Upload) => Promise<UploadOutcome>;
  readonly maxPdfBytes: number;
  readonly maxPdfs: number;
  /** The whole upload as a message (MAX_MESSAGE_BYTES). */
  readonly maxUploadBytes: number;
  readonly clock: () => number;
  readonly logger: Logger;
}

export interface SignedIn {
  readonly id: string;
  readonly session: PortalSession;
  readonly user: PortalUser;
  readonly sender: Sender | undefined;
}

const signedIn = new WeakMap<FastifyRequest, SignedIn>();

export function setSignedIn(request: FastifyRequest, who: SignedIn): void {
  signedIn.set(request, who);
}

export function whoIs(request: FastifyRequest): SignedIn | undefined {
  return signedIn.get(request);
}

/** Cookies as OWASP asks: HttpOnly, Secure (browsers keep these on http://127.0.0.1 and localhost), SameSite=Lax. */
const COOKIE = { path: '/portal', httpOnly: true, secure: true, sameSite: 'lax' } as const;

export function setSessionCookie(reply: FastifyReply, id: string): void {
  reply.setCookie(SESSION_COOKIE, id, { ...COOKIE, maxAge: SESSION_IDLE_MS / 1000 });
}

export function clearSessionCookie(reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, COOKIE);
}

/** What binds a form's CSRF token: the session id, or before sign-in the pre-session cookie (made here). */
export function csrfBinding(request: FastifyRequest, reply: FastifyReply): string {
  const who = whoIs(request);
  if (who !== undefined) return who.id;
  const pre = request.cookies[PRE_COOKIE];
  if (pre !== undefined && pre !== '') return pre;
  const made = randomBytes(24).toString('base64url');
  reply.setCookie(PRE_COOKIE, made, COOKIE);
  request.cookies[PRE_COOKIE] = made; // the same response's forms bind to it
  return made;
}

export function csrfToken(ctx: PortalContext, request: FastifyRequest, reply: FastifyReply): string {
  return ctx.csrf.token(csrfBinding(request, reply));
}

export function viewerOf(ctx: PortalContext, request: FastifyRequest, reply: FastifyReply): Viewer | undefined {
  const who = whoIs(request);
  if (who === undefined || who.session.stage !== 'full') return undefined;
  return { email: who.user.email, company: who.sender?.companyNameEn ?? '(unknown sender)', csrf: csrfToken(ctx, request, reply) };
}

export function html(reply: FastifyReply, status: number, title: string, body: string, viewer?: Viewer): FastifyReply {
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(layout(title, body, viewer));
}

/** The client's address and browser, for sessions and the audit log. */
export function originOf(request: FastifyRequest): { ip: string; userAgent: string } {
  return { ip: request.ip, userAgent: String(request.headers['user-agent'] ?? '') };
}

/** A text field of a parsed form body. */
export function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const value: unknown = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** "in 12 minutes" for a 429 page. */
export function waitText(ms: number): string {
  const minutes = Math.ceil(ms / 60_000);
  return minutes <= 1 ? 'in a minute' : `in ${minutes} minutes`;
}
