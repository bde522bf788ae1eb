// The raw message and its PDFs, behind the admin login (registered inside the admin routes):
//   GET /admin/intakes/:id/raw              the message as stored (text/plain, inline)
//   GET /admin/intakes/:id/raw?download=1   the same as a file (message/rfc822, attachment)
//   GET /admin/intakes/:id/pdfs/:n          the n-th PDF of the letter (application/pdf, inline)
// The file name in Content-Disposition is the sender's, made safe (RFC 6266 with RFC 8187's
// filename* for non-ASCII names).
import type { FastifyPluginAsync } from 'fastify';
import type { IntakeStore } from '../intake/store.js';
import { rawMessageBytes } from '../raw-store/raw-message.js';
import type { RawStore } from '../raw-store/raw-store.js';
import { parseMessage } from '../worker/parse-message.js';
import { selectPdfs } from '../worker/pdf-rules.js';
import { INTAKES_PATH } from './intake-page.js';

export function contentDisposition(kind: 'inline' | 'attachment', fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export function rawRoutes(deps: { readonly store: IntakeStore; readonly rawStore: RawStore }): FastifyPluginAsync {
  return async (app) => {
    const rawOf = async (id: string): Promise<Buffer | undefined> => {
      const record = await deps.store.get(id);
      return record === undefined ? undefined : rawMessageBytes(deps.rawStore, record);
    };
    app.get<{ Params: { id: string }; Querystring: { download?: string } }>(`${INTAKES_PATH}/:id/raw`, async (request, reply) => {
      const raw = await rawOf(request.params.id);
      if (raw === undefined) return reply.code(404).send({ error: 'no raw message kept for this intake' });
      const download = request.query.download === '1';
      return reply
        .type(download ? 'message/rfc822' : 'text/plain; charset=utf-8')
        .header('content-disposition', contentDisposition(download ? 'attachment' : 'inline', `${request.params.id}.eml`))
        .send(raw);
    });
    app.get<{ Params: { id: string; n: string } }>(`${INTAKES_PATH}/:id/pdfs/:n`, async (request, reply) => {
      const raw = await rawOf(request.params.id);
      if (raw === undefined) return reply.code(404).send({ error: 'no raw message kept for this intake' });
      const { pdfs } = selectPdfs((await parseMessage(raw)).attachments);
      const pdf = pdfs[Number(request.params.n) - 1];
      if (pdf === undefined) return reply.code(404).send({ error: `no PDF ${request.params.n}` });
      return reply.type('application/pdf').header('content-disposition', contentDisposition('inline', pdf.fileName)).send(pdf.content);
    });
  };
}
