// Uploading a letter (the contract's web client "creates letters"): title, description and one or
// more PDFs, handed to the intake path e-mail takes (upload.ts). The form carries a one-time token,
// so a second submit of the same form finds the first intake. A refusal — a rule of the message at
// once, or the worker's deep PDF checks within a few seconds — is shown on the form by its code.
import type { Multipart } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { FINAL_STATES } from '../intake/record.js';
import { csrfToken, html, type PortalContext, type SignedIn, viewerOf } from './context.js';
import { csrfField, esc } from './html.js';
import type { UploadedPdf } from './upload.js';

const mib = (bytes: number): string => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

/** How long the submit waits for the worker's verdict before showing the intake as it is. */
const VERDICT_WAIT_MS = 5000;
const FIELD_MAX_BYTES = 64 * 1024;

interface Form {
  title: string;
  description: string;
  formToken: string;
  pdfs: UploadedPdf[];
  tooLarge: string | undefined;
  /** The PDFs together passed the message size cap (the rest were read and dropped). */
  overTotal: boolean;
}

export function uploadRoutes(ctx: PortalContext, full: (request: FastifyRequest) => SignedIn) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/portal/letters/new', async (request, reply) => {
      const who = full(request);
      return formPage(ctx, request, reply, who, 200, '', { title: '', description: '' });
    });

    app.post('/portal/letters/new', async (request, reply) => {
      const who = full(request);
      const sender = who.sender;
      if (sender === undefined)
        return html(
          reply,
          409,
          'Upload a letter',
          '<p class="error">Your sender is not registered any more.</p>',
          viewerOf(ctx, request, reply),
        );
      if (!request.isMultipart())
        return formPage(ctx, request, reply, who, 400, 'The form must be sent as multipart/form-data.', { title: '', description: '' });
      const form = await readForm(request.parts(), ctx.maxPdfBytes, ctx.maxUploadBytes);
      const claim = await ctx.formTokens.claim(who.user.userId, form.formToken);
      if (claim.kind === 'done') return reply.redirect(`/portal/intakes/${encodeURIComponent(claim.intakeId)}`, 303);
      if (claim.kind === 'busy')
        return html(
          reply,
          409,
          'Upload a letter',
          '<p>This form is being sent already; see <a href="/portal/intakes">your intakes</a> in a moment.</p>',
          viewerOf(ctx, request, reply),
        );
      if (claim.kind === 'unknown') return formPage(ctx, request, reply, who, 400, 'This form has expired; send it again.', form);
      if (form.overTotal) {
        await ctx.formTokens.settle(who.user.userId, form.formToken, undefined);
        return refusedPage(
          ctx,
          request,
          reply,
          who,
          form,
          'MessageTooLarge',
          `the PDFs together are larger than ${mib(ctx.maxUploadBytes / 1.37)}; send fewer`,
        );
      }
      if (form.tooLarge !== undefined) {
        await ctx.formTokens.settle(who.user.userId, form.formToken, undefined);
        return refusedPage(
          ctx,
          request,
          reply,
          who,
          form,
          'PdfTooLarge',
          `"${form.tooLarge}" is larger than ${mib(ctx.maxPdfBytes)}; send a smaller PDF`,
        );
      }
      const outcome = await ctx.upload({
        sender,
        userEmail: who.user.email,
        clientIp: request.ip,
        title: form.title,
        description: form.description,
        pdfs: form.pdfs,
        formToken: form.formToken,
      });
      if (outcome.kind === 'refused') {
        await ctx.formTokens.settle(who.user.userId, form.formToken, undefined);
        await ctx.audit({
          action: `upload refused (${outcome.reasonCode})`,
          userId: who.user.userId,
          email: who.user.email,
          senderId: sender.senderId,
          ip: request.ip,
        });
        return refusedPage(ctx, request, reply, who, form, outcome.reasonCode, outcome.reason);
      }
      await ctx.formTokens.settle(who.user.userId, form.formToken, outcome.intakeId);
      await ctx.audit({
        action: 'letter uploaded',
        userId: who.user.userId,
        email: who.user.email,
        senderId: sender.senderId,
        ip: request.ip,
        detail: outcome.intakeId,
      });
      const record = await verdict(ctx, sender, outcome.intakeId);
      if (record?.state === 'rejected') {
        return refusedPage(
          ctx,
          request,
          reply,
          who,
          form,
          record.reasonCode ?? 'Rejected',
          `${record.reason ?? ''} (intake ${outcome.intakeId})`,
        );
      }
      return reply.redirect(`/portal/intakes/${encodeURIComponent(outcome.intakeId)}`, 303);
    });
  };
}

async function verdict(ctx: PortalContext, sender: NonNullable<SignedIn['sender']>, intakeId: string) {
  const deadline = ctx.clock() + VERDICT_WAIT_MS;
  for (;;) {
    const record = await ctx.intakes.get(sender, intakeId);
    if (record === undefined || FINAL_STATES.includes(record.state) || Date.now() > deadline) return record;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The multipart body, read within the multipart plugin's limits (files, parts, field sizes). */
async function readForm(parts: AsyncIterableIterator<Multipart>, maxPdfBytes: number, maxTotalBytes: number): Promise<Form> {
  const form: Form = { title: '', description: '', formToken: '', pdfs: [], tooLarge: undefined, overTotal: false };
  let total = 0;
  for await (const part of parts) {
    if (part.type === 'file') {
      const content = await part.toBuffer();
      if (part.fieldname !== 'pdf' || (part.filename === '' && content.length === 0)) continue;
      total += content.length;
      // base64 makes a PDF a third larger in the message: past the cap, the rest is not kept
      if (total * 1.37 > maxTotalBytes) form.overTotal = true;
      else if (part.file.truncated || content.length > maxPdfBytes) form.tooLarge ??= part.filename;
      else form.pdfs.push({ fileName: part.filename || 'letter.pdf', contentType: pdfType(part.mimetype, part.filename), content });
      continue;
    }
    const value = typeof part.value === 'string' ? part.value.slice(0, FIELD_MAX_BYTES) : '';
    if (part.fieldname === 'title') form.title = value;
    else if (part.fieldname === 'description') form.description = value;
    else if (part.fieldname === 'form') form.formToken = value;
  }
  return form;
}

/** Browsers send a PDF as application/pdf; anything else keeps its type, and the rules judge it. */
function pdfType(mimetype: string, fileName: string): string {
  if (mimetype === 'application/pdf') return mimetype;
  return /\.pdf$/i.test(fileName) && (mimetype === '' || mimetype === 'application/octet-stream')
    ? 'application/octet-stream'
    : mimetype || 'application/octet-stream';
}

async function refusedPage(
  ctx: PortalContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: SignedIn,
  form: Pick<Form, 'title' | 'description'>,
  reasonCode: string,
  reason: string,
): Promise<FastifyReply> {
  const text = reason.startsWith(`${reasonCode}: `) ? reason.slice(reasonCode.length + 2) : reason;
  return formPage(ctx, request, reply, who, 422, `<code class="reason-code">${esc(reasonCode)}</code> ${esc(text)}`, form, true);
}

async function formPage(
  ctx: PortalContext,
  request: FastifyRequest,
  reply: FastifyReply,
  who: SignedIn,
  status: number,
  problem: string,
  form: Pick<Form, 'title' | 'description'>,
  problemIsMarkup = false,
): Promise<FastifyReply> {
  const csrf = csrfToken(ctx, request, reply);
  const formToken = await ctx.formTokens.issue(who.user.userId);
  const message = problem === '' ? '' : `<p class="error" role="alert">${problemIsMarkup ? problem : esc(problem)}</p>`;
  return html(
    reply,
    status,
    'Upload a letter',
    `${message}<p>The letter goes the same way as one you e-mail: the same rules and PDF checks, and it is made once. PDFs of at most ${mib(ctx.maxPdfBytes)} each, at most ${ctx.maxPdfs}.</p>
<form method="post" action="/portal/letters/new?_csrf=${encodeURIComponent(csrf)}" enctype="multipart/form-data">${csrfField(csrf)}
<input type="hidden" name="form" value="${esc(formToken)}">
<label for="title">Title</label><input id="title" name="title" type="text" value="${esc(form.title)}" required>
<label for="description">Description</label><textarea id="description" name="description" rows="5">${esc(form.description)}</textarea>
<label for="pdf">PDF files</label><input id="pdf" name="pdf" type="file" accept="application/pdf,.pdf" multiple required>
<button type="submit">Upload</button></form>`,
    viewerOf(ctx, request, reply),
  );
}
