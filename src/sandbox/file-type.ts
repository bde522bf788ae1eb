// A document's type from its first bytes, never from its name (pure). The types a receipt or an
// invoice may carry: PDF, JPEG, PNG and WebP (the contract's pdf, jpg, jpeg, png, webp).

export type DocumentType = 'application/pdf' | 'image/jpeg' | 'image/png' | 'image/webp';

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]; // PNG spec §5.2 signature

export function sniffDocumentType(bytes: Uint8Array): DocumentType | undefined {
  if (startsWith(bytes, 0, [...Buffer.from('%PDF-', 'latin1')])) return 'application/pdf'; // ISO 32000-1 §7.5.2 header
  if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) return 'image/jpeg'; // SOI marker, then the next marker
  if (startsWith(bytes, 0, PNG)) return 'image/png';
  // RIFF container (4-byte size), form type WEBP
  if (startsWith(bytes, 0, [...Buffer.from('RIFF', 'latin1')]) && startsWith(bytes, 8, [...Buffer.from('WEBP', 'latin1')])) {
    return 'image/webp';
  }
  return undefined;
}

function startsWith(bytes: Uint8Array, offset: number, signature: readonly number[]): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((byte, i) => bytes[offset + i] === byte);
}
