// The structural walk's pdf-lib document (src/pdf/structure-walk.ts, loadForWalk): loaded from a
// plain Uint8Array, as a checker thread receives the PDF, each stream's contents are a view into
// those bytes, not a copy (a 10 MB stream was a 10 MB copy per PDF, and a collection of it), and
// they are the bytes between `stream` and `endstream`.
import { PDFRawStream } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { loadForWalk } from '../../src/pdf/structure-walk.js';
import { letterPdf } from '../helpers/pdf-samples.js';

describe('the PDF as the structural walk loads it', () => {
  it("gives each stream's contents as a view of the bytes received, equal to the bytes between stream and endstream", async () => {
    const received = new Uint8Array(await letterPdf(2)); // its own ArrayBuffer, not a Buffer
    const doc = await loadForWalk(received);
    const streams = doc.context
      .enumerateIndirectObjects()
      .map(([, object]) => object)
      .filter((object): object is PDFRawStream => object instanceof PDFRawStream);
    expect(streams.length).toBeGreaterThan(1);
    const text = Buffer.from(received).toString('latin1');
    for (const stream of streams) {
      expect(stream.contents.buffer).toBe(received.buffer);
      const start = stream.contents.byteOffset;
      expect(text.slice(start - 'stream\n'.length, start)).toBe('stream\n');
      expect(text.startsWith('\nendstream', start + stream.contents.length)).toBe(true);
    }
  });
});
