// The structural walk pdf.js does not offer: every action reachable from the catalog, the
// outlines, the form fields, the pages and their annotations, read with pdf-lib's object model
// (pdf.js reports JavaScript and attachments, but a /Launch action only as an opaque link).
// Bounded: each object is visited once and the walk stops after MAX_VISITS objects.
import { ParseSpeeds, PDFArray, PDFDict, PDFDocument, PDFName, type PDFObject } from 'pdf-lib';

const MAX_VISITS = 200_000;

export interface StructureFindings {
  javascript: string[];
  launch: string[];
  embeddedFiles: string[];
  xfa: boolean;
  /** Pages the walk reached (fewer than the document has when some sit where it cannot read). */
  pages: number;
}

const N = (name: string) => PDFName.of(name);

export async function walkStructure(bytes: Uint8Array): Promise<StructureFindings> {
  const doc = await loadForWalk(bytes);
  const { context } = doc;
  const findings: StructureFindings = { javascript: [], launch: [], embeddedFiles: [], xfa: false, pages: 0 };
  const seen = new Set<PDFObject>();
  let visits = 0;

  const dictOf = (obj: PDFObject | undefined): PDFDict | undefined => {
    const value = obj === undefined ? undefined : context.lookup(obj);
    return value instanceof PDFDict ? value : undefined;
  };
  const arrayOf = (obj: PDFObject | undefined): PDFObject[] => {
    const value = obj === undefined ? undefined : context.lookup(obj);
    return value instanceof PDFArray ? value.asArray() : [];
  };
  /** Marks an object visited; false when it was seen already or the budget is spent. */
  const visit = (obj: PDFObject): boolean => {
    if (seen.has(obj)) return false;
    if (++visits > MAX_VISITS) throw new Error('too many objects to walk');
    seen.add(obj);
    return true;
  };

  // PDF 32000-1 §12.6.2: an action dictionary, with /Next holding one action or an array of them.
  const action = (obj: PDFObject | undefined, place: string): void => {
    const pending: (PDFObject | undefined)[] = [obj];
    while (pending.length > 0) {
      const dict = dictOf(pending.pop());
      if (dict === undefined || !visit(dict)) continue;
      const kind = dict.get(N('S'));
      if (kind === N('JavaScript')) findings.javascript.push(place);
      if (kind === N('Launch')) findings.launch.push(place);
      if (kind === N('GoToE')) findings.embeddedFiles.push(`${place}, a go-to-embedded action`);
      const next = context.lookup(dict.get(N('Next')));
      if (next instanceof PDFArray) pending.push(...next.asArray());
      else pending.push(next);
    }
  };
  // §12.6.3: additional-actions dictionary, one action per trigger event.
  const additional = (obj: PDFObject | undefined, place: string): void => {
    const dict = dictOf(obj);
    if (dict === undefined) return;
    for (const [, value] of dict.entries()) action(value, place);
  };

  const catalog = doc.catalog;
  const openAction = context.lookup(catalog.get(N('OpenAction')));
  if (openAction instanceof PDFDict) action(openAction, 'document open action');
  additional(catalog.get(N('AA')), 'document actions');
  const names = dictOf(catalog.get(N('Names')));
  if (names !== undefined) {
    if (nameTreeHasEntries(dictOf(names.get(N('JavaScript'))), dictOf, arrayOf)) findings.javascript.push('document JavaScript names tree');
    if (nameTreeHasEntries(dictOf(names.get(N('EmbeddedFiles'))), dictOf, arrayOf)) findings.embeddedFiles.push('document embedded files');
  }
  const acroForm = dictOf(catalog.get(N('AcroForm')));
  if (acroForm?.get(N('XFA')) !== undefined) findings.xfa = true;

  // §12.3.3: outline items, First/Next chains.
  const outlines = dictOf(catalog.get(N('Outlines')));
  const items: (PDFObject | undefined)[] = [outlines?.get(N('First'))];
  while (items.length > 0) {
    const item = dictOf(items.pop());
    if (item === undefined || !visit(item)) continue;
    action(item.get(N('A')), 'bookmark');
    items.push(item.get(N('Next')), item.get(N('First')));
  }

  // §12.7.3: form fields and their kids (widgets carry /A and /AA too).
  const fields: PDFObject[] = acroForm === undefined ? [] : arrayOf(acroForm.get(N('Fields')));
  while (fields.length > 0) {
    const field = dictOf(fields.pop());
    if (field === undefined || !visit(field)) continue;
    action(field.get(N('A')), 'form field');
    additional(field.get(N('AA')), 'form field');
    fields.push(...arrayOf(field.get(N('Kids'))));
  }

  // §7.7.3: the page tree, walked without recursion; pages numbered in document order.
  let pageNumber = 0;
  const nodes: (PDFObject | undefined)[] = [catalog.get(N('Pages'))];
  while (nodes.length > 0) {
    const node = dictOf(nodes.pop());
    if (node === undefined || !visit(node)) continue;
    const kids = node.get(N('Kids'));
    if (node.get(N('Type')) !== N('Page') && kids !== undefined) {
      nodes.push(...arrayOf(kids).reverse());
      continue;
    }
    pageNumber += 1;
    const page = `page ${pageNumber}`;
    additional(node.get(N('AA')), `${page} actions`);
    for (const annotRef of arrayOf(node.get(N('Annots')))) {
      const annot = dictOf(annotRef);
      if (annot === undefined || !visit(annot)) continue;
      if (annot.get(N('Subtype')) === N('FileAttachment')) findings.embeddedFiles.push(`${page}, a file attachment annotation`);
      action(annot.get(N('A')), `${page}, an annotation`);
      additional(annot.get(N('AA')), `${page}, an annotation`);
    }
  }
  findings.pages = pageNumber;
  return findings;
}

/**
 * The document as the walk reads it. pdf-lib takes each stream's contents with the input's
 * slice(): a copy from a Uint8Array (10 MB per 10 MB stream, and a collection of it, in the
 * checker thread), a view from a Buffer, whose slice() is subarray(). The walk never writes.
 * Encrypted files load too: names and dictionaries are never encrypted, only strings and streams.
 */
export function loadForWalk(bytes: Uint8Array): Promise<PDFDocument> {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return PDFDocument.load(view, { ignoreEncryption: true, updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
}

/** §7.9.6: a name tree has entries when its root or any kid has a non-empty /Names array. */
function nameTreeHasEntries(
  root: PDFDict | undefined,
  dictOf: (o: PDFObject | undefined) => PDFDict | undefined,
  arrayOf: (o: PDFObject | undefined) => PDFObject[],
): boolean {
  const pending: (PDFDict | undefined)[] = [root];
  const seen = new Set<PDFDict>();
  while (pending.length > 0 && seen.size < MAX_VISITS) {
    const node = pending.pop();
    if (node === undefined || seen.has(node)) continue;
    seen.add(node);
    if (arrayOf(node.get(N('Names'))).length > 0) return true;
    pending.push(...arrayOf(node.get(N('Kids'))).map(dictOf));
  }
  return false;
}
