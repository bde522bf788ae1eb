// A valid one-page PDF of exactly `totalBytes`: the page of fixtures/pdf.ts plus one unreferenced
// stream object of pseudo-random bytes (incompressible, like a real PDF's compressed streams),
// with a correct cross-reference table. Deterministic: the same size gives the same bytes.

/** Returns a PDF of exactly `totalBytes` bytes (at least ~1 KB). */
export function paddedPdf(totalBytes: number): Buffer {
  const content = 'BT /F1 16 Tf 72 770 Td (Acme Utilities - benchmark letter) Tj ET';
  const fixed = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ].map((body) => Buffer.from(body, 'latin1'));

  const build = (padBytes: number): Buffer => {
    const objects = [
      ...fixed,
      Buffer.concat([Buffer.from(`<< /Length ${padBytes} >>\nstream\n`, 'latin1'), noise(padBytes), Buffer.from('\nendstream', 'latin1')]),
    ];
    // PDF 32000-1 §7.5.2: a comment with bytes > 127 after the header marks the file binary.
    const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
    let length = chunks[0]?.length ?? 0;
    const offsets: number[] = [];
    objects.forEach((body, index) => {
      offsets.push(length);
      const framed = [Buffer.from(`${index + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')];
      chunks.push(...framed);
      length += framed.reduce((n, b) => n + b.length, 0);
    });
    // §7.5.4: each cross-reference entry is exactly 20 bytes.
    const xref =
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
      offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('') +
      `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`;
    chunks.push(Buffer.from(xref, 'latin1'));
    return Buffer.concat(chunks);
  };

  // The padding's own /Length digits shift the total: settle it in a few rounds.
  let pad = Math.max(0, totalBytes - build(0).length);
  for (let round = 0; round < 4; round += 1) {
    const size = build(pad).length;
    if (size === totalBytes) break;
    pad = Math.max(0, pad + totalBytes - size);
  }
  return build(pad);
}

/** xorshift32 bytes: fast, fixed seed, no entropy needed. */
function noise(bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
