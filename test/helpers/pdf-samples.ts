// PDFs for the PDF-check tests, made in code: pdf-lib writes letters with JavaScript, Launch
// actions, attachments and forms; qpdf (Debian) encrypts, linearizes and writes object streams;
// Chromium prints an HTML letter (a real producer's output). Each sample says what it holds.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type PDFDict, PDFDocument, PDFHexString, PDFName, type PDFRef, PDFString, StandardFonts } from 'pdf-lib';

const run = promisify(execFile);
const N = (name: string) => PDFName.of(name);

export const SAMPLE_PRODUCER = 'Acme Billing 4.2';

/** A plain letter of `pages` pages, PDF 1.7, with SAMPLE_PRODUCER as /Producer. */
export async function letterDoc(pages = 1): Promise<PDFDocument> {
  const doc = await PDFDocument.create();
  doc.setProducer(SAMPLE_PRODUCER);
  doc.setCreator('Acme Billing');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n += 1) {
    doc.addPage([595, 842]).drawText(`Acme Utilities, statement page ${n}`, { x: 72, y: 770, size: 14, font });
  }
  return doc;
}

export async function save(doc: PDFDocument, objectStreams = false): Promise<Buffer> {
  return Buffer.from(await doc.save({ useObjectStreams: objectStreams }));
}

export const letterPdf = async (pages = 1): Promise<Buffer> => save(await letterDoc(pages));

/** `pages` pages of 40 lines of text each: valid, and heavy to read (every page is loaded and walked). */
export async function statementPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n += 1) {
    const page = doc.addPage([595, 842]);
    for (let line = 0; line < 40; line += 1)
      page.drawText(`Statement page ${n}, line ${line}: 42,00 EUR`, { x: 56, y: 800 - line * 18, size: 11, font });
  }
  return Buffer.from(await doc.save());
}

function jsAction(doc: PDFDocument): PDFRef {
  return doc.context.register(doc.context.obj({ S: 'JavaScript', JS: PDFString.of("app.alert('hello');") }));
}

function launchAction(doc: PDFDocument): PDFDict {
  return doc.context.obj({ S: 'Launch', Win: { F: PDFString.of('cmd.exe'), P: PDFString.of('/c calc.exe') } });
}

/** Adds an annotation dictionary (with /Subtype and what it needs) to page 1. */
function addAnnotation(doc: PDFDocument, annot: PDFDict): void {
  annot.set(N('Type'), N('Annot'));
  annot.set(N('Rect'), doc.context.obj([72, 700, 300, 720]));
  doc.getPage(0).node.addAnnot(doc.context.register(annot));
}

/** Each PDF that breaks one rule, and what the rule's sentence must name. */
export const ACTIVE_SAMPLES: readonly { name: string; names: RegExp; build: () => Promise<Buffer> }[] = [
  {
    name: 'JavaScript as the document open action',
    names: /JavaScript/,
    build: async () => {
      const d = await letterDoc();
      d.catalog.set(N('OpenAction'), jsAction(d));
      return save(d);
    },
  },
  {
    name: 'JavaScript in the document names tree',
    names: /JavaScript/,
    build: async () => {
      const d = await letterDoc();
      d.catalog.set(N('Names'), d.context.obj({ JavaScript: { Names: [PDFHexString.fromText('init'), jsAction(d)] } }));
      return save(d);
    },
  },
  {
    name: 'JavaScript on a page open action',
    names: /JavaScript \(page 1/,
    build: async () => {
      const d = await letterDoc();
      d.getPage(0).node.set(N('AA'), d.context.obj({ O: jsAction(d) }));
      return save(d);
    },
  },
  {
    name: 'JavaScript behind a link annotation',
    names: /JavaScript \(page 1, an annotation\)/,
    build: async () => {
      const d = await letterDoc();
      addAnnotation(d, d.context.obj({ Subtype: 'Link', A: jsAction(d) }));
      return save(d);
    },
  },
  {
    name: 'a Launch action as the document open action',
    names: /Launch action \(document open action\)/,
    build: async () => {
      const d = await letterDoc();
      d.catalog.set(N('OpenAction'), launchAction(d));
      return save(d);
    },
  },
  {
    name: 'a Launch action behind a link, written in object streams',
    names: /Launch action \(page 1, an annotation\)/,
    build: async () => {
      const d = await letterDoc();
      addAnnotation(d, d.context.obj({ Subtype: 'Link', A: launchAction(d) }));
      return save(d, true);
    },
  },
  {
    name: 'an embedded executable',
    names: /embedded file/,
    build: async () => {
      const d = await letterDoc();
      await d.attach(Buffer.from('MZ\x90\x00 not really a program', 'latin1'), 'setup.exe', { mimeType: 'application/x-msdownload' });
      return save(d);
    },
  },
  {
    name: 'a file attachment annotation',
    names: /embedded file \(page 1, a file attachment annotation\)/,
    build: async () => {
      const d = await letterDoc();
      const file = d.context.register(d.context.stream('MZ payload', { Type: 'EmbeddedFile' }));
      addAnnotation(d, d.context.obj({ Subtype: 'FileAttachment', FS: { Type: 'Filespec', F: PDFString.of('run.exe'), EF: { F: file } } }));
      return save(d);
    },
  },
  {
    name: 'an XFA form',
    names: /XFA form/,
    build: async () => {
      const d = await letterDoc();
      const xfa = d.context.register(d.context.stream('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"></xdp:xdp>'));
      d.catalog.set(N('AcroForm'), d.context.obj({ Fields: [], XFA: xfa }));
      return save(d);
    },
  },
];

/** A letter with one AcroForm text field (allowed only for senders with allowPdfForms). */
export async function formPdf(): Promise<Buffer> {
  const d = await letterDoc();
  d.getForm().createTextField('customer.reference').addToPage(d.getPage(0), { x: 72, y: 600, width: 200, height: 20 });
  return save(d);
}

/** `qpdf ARGS in out` over `input`; returns the output. */
export async function qpdf(input: Buffer, args: readonly string[]): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'qpdf-'));
  try {
    writeFileSync(join(dir, 'in.pdf'), input);
    await run('qpdf', [...args, join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    return readFileSync(join(dir, 'out.pdf'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const withUserPassword = (pdf: Buffer) => qpdf(pdf, ['--encrypt', 'citizen', 'owner-secret', '256', '--']);
/** Encrypted with an empty user password: opens without one; printing and copying are refused. */
export const permissionsOnly = (pdf: Buffer, extra: readonly string[] = []) =>
  qpdf(pdf, ['--encrypt', '', 'owner-secret', '256', '--print=none', '--extract=n', '--modify=none', '--', ...extra]);

/** Chromium's --print-to-pdf of a two-page HTML letter (skia/PDF, the producer it names). */
export async function chromiumLetter(): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'chromium-pdf-'));
  try {
    const html = join(dir, 'letter.html');
    writeFileSync(
      html,
      `<!doctype html><meta charset="utf-8"><title>Statement</title>
<style>p{font:14px serif} .break{page-break-after:always}</style>
<h1>Acme Utilities</h1><p class="break">Dear customer, your statement for March: 42,00 €.</p>
<p>Page two: terms and conditions. <a href="https://acme.example/help">help</a></p>`,
    );
    const out = join(dir, 'letter.pdf');
    await run(
      'chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-pdf-header-footer',
        `--user-data-dir=${join(dir, 'profile')}`,
        `--print-to-pdf=${out}`,
        `file://${html}`,
      ],
      { timeout: 60_000 },
    );
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
