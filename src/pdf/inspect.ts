// Opens one PDF and reports what it holds (facts.ts). Runs inside a checker thread (the pool
// bounds its time and memory); never throws for a bad file: a file pdf.js cannot open is
// `damaged` or `password`. pdf.js opens, decrypts, counts pages and finds JavaScript, attachments
// and forms; the structural walk (structure-walk.ts) adds /Launch actions.
import { getDocument, PasswordException, type PDFDocumentProxy, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { OpenedPdf, PdfFacts } from './facts.js';
import { type StructureFindings, walkStructure } from './structure-walk.js';

// pdf.js's AnnotationType.FILEATTACHMENT.
const FILE_ATTACHMENT_ANNOTATION = 17;
const MAX_PRODUCER_CHARS = 200;

/**
 * `owned`: the bytes are given away (a checker thread's own copy, moved to it): pdf.js takes them
 * rather than a copy of them, so a PDF is in the thread's memory once, not twice (V8 answers each
 * 10 MB of fresh memory with a full collection of the thread's heap). pdf.js may detach what it
 * takes, so the structural walk reads the bytes first.
 */
export async function inspectPdf(bytes: Uint8Array, { owned = false } = {}): Promise<PdfFacts> {
  const walk = await walkStructure(bytes).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  const task = getDocument({
    data: owned ? bytes : new Uint8Array(bytes), // pdf.js may take ownership of the buffer it is given
    // (pdf.js 6 never evaluates code from a file: the 5.x `isEvalSupported` option is gone.)
    stopAtErrors: true,
    verbosity: VerbosityLevel.ERRORS,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    useWorkerFetch: false,
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    if (err instanceof PasswordException) return { kind: 'password' };
    return { kind: 'damaged', detail: describe(err) };
  }
  try {
    return await inspectOpened(doc, walk);
  } catch (err) {
    return { kind: 'damaged', detail: describe(err) };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}

async function inspectOpened(doc: PDFDocumentProxy, walk: StructureFindings | Error): Promise<PdfFacts> {
  if (doc.numPages < 1) return { kind: 'damaged', detail: 'it has no pages' };
  const { info } = await doc.getMetadata();
  const encrypted = typeof Reflect.get(info, 'EncryptFilterName') === 'string';
  const javascript: string[] = [];
  const embeddedFiles: string[] = [];
  const documentJs = await doc.getJSActions();
  if (documentJs !== null && documentJs.size > 0) javascript.push(`document actions (${[...documentJs.keys()].join(', ')})`);
  const attachments = await doc.getAttachments();
  if (attachments !== null && attachments.size > 0) embeddedFiles.push(`${attachments.size} attached to the document`);
  if (Reflect.get(info, 'IsCollectionPresent') === true) embeddedFiles.push('a PDF portfolio');

  // Every page must load (a page tree that points nowhere is damage a viewer shows as a blank or an error).
  for (let n = 1; n <= doc.numPages; n += 1) {
    const page = await doc.getPage(n).catch((err: unknown) => {
      throw new Error(`page ${n} cannot be read: ${describe(err)}`);
    });
    const pageJs = await page.getJSActions();
    if (pageJs !== null && pageJs.size > 0) javascript.push(`page ${n} actions`);
    const annotations: unknown[] = await page.getAnnotations();
    for (const annotation of annotations) {
      if (typeof annotation !== 'object' || annotation === null) continue;
      if (Reflect.get(annotation, 'annotationType') === FILE_ATTACHMENT_ANNOTATION)
        embeddedFiles.push(`page ${n}, a file attachment annotation`);
      const actions: unknown = Reflect.get(annotation, 'actions');
      if (typeof actions === 'object' && actions !== null && Object.keys(actions).length > 0) javascript.push(`page ${n}, an annotation`);
    }
    page.cleanup();
  }

  // Only an encrypted file may fail the walk (its catalog can sit in an encrypted object stream,
  // which the walker cannot decrypt); any other file that pdf.js opens but the walker cannot read
  // is not trusted: a /Launch could hide there.
  if (walk instanceof Error && !encrypted) return { kind: 'damaged', detail: `its object structure cannot be read: ${describe(walk)}` };
  const structure = walk instanceof Error ? undefined : walk;
  const walked = structure === undefined ? [] : [structure];
  const facts: OpenedPdf = {
    kind: 'opened',
    pages: doc.numPages,
    version: text(Reflect.get(info, 'PDFFormatVersion')) ?? 'unknown',
    producer: text(Reflect.get(info, 'Producer')),
    encrypted,
    javascript: unique([...javascript, ...walked.flatMap((f) => f.javascript)]),
    launch: unique(walked.flatMap((f) => f.launch)),
    embeddedFiles: unique([...embeddedFiles, ...walked.flatMap((f) => f.embeddedFiles)]),
    xfa: Reflect.get(info, 'IsXFAPresent') === true || walked.some((f) => f.xfa),
    formFields: Reflect.get(info, 'IsAcroFormPresent') === true,
    // Complete only when the walker reached every page pdf.js counted.
    structureWalked: structure !== undefined && structure.pages === doc.numPages,
  };
  return facts;
}

/** A short, printable description of a parser error (its message comes from the file's bytes). */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return clean(message).slice(0, 160) || 'unreadable';
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const cleaned = clean(value).slice(0, MAX_PRODUCER_CHARS);
  return cleaned === '' ? undefined : cleaned;
}

function clean(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this strips
  return value.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
}

function unique(places: readonly string[]): string[] {
  return [...new Set(places)];
}
