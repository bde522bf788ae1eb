// A request body as JSON bytes. Every Base64Data held by an object property is left out of
// JSON.stringify (a marker string stands in for it) and its base64 is written into the bytes
// where the marker was: base64 text needs no JSON escaping and is ASCII, so it goes in as is.
import { randomUUID } from 'node:crypto';
import { Base64Data } from './base64-data.js';

export function jsonBody(value: unknown): Buffer {
  const documents: Base64Data[] = [];
  // A fresh marker per body: no text of the letter can hold it by chance.
  const nonce = randomUUID();
  const markerOf = (index: number): string => `${nonce}:${index}`;
  const text = JSON.stringify(value, function replace(_key: string, field: unknown): unknown {
    if (typeof field !== 'object' || field === null || Array.isArray(field) || field instanceof Base64Data) return field;
    let marked: Record<string, unknown> | undefined;
    for (const [name, inner] of Object.entries(field)) {
      if (!(inner instanceof Base64Data)) continue;
      marked ??= { ...field };
      marked[name] = markerOf(documents.push(inner) - 1);
    }
    return marked ?? field;
  });
  if (documents.length === 0) return Buffer.from(text, 'utf8');

  // The markers appear in the text in the order the replacer met them, each as a JSON string.
  const pieces: (string | Base64Data)[] = [];
  let from = 0;
  documents.forEach((document, index) => {
    const marker = JSON.stringify(markerOf(index));
    const at = text.indexOf(marker, from);
    if (at === -1) throw new Error('a document marker is missing from the JSON text');
    pieces.push(text.slice(from, at + 1), document); // keeps the opening quote
    from = at + marker.length - 1; // the closing quote comes next
  });
  pieces.push(text.slice(from));

  // Text pieces as UTF-8, base64 pieces (ASCII) one byte per character.
  const encoded = pieces.map((piece) =>
    typeof piece === 'string' ? { text: piece, encoding: 'utf8' as const } : { text: piece.toString(), encoding: 'latin1' as const },
  );
  const bytes = Buffer.allocUnsafe(encoded.reduce((sum, piece) => sum + Buffer.byteLength(piece.text, piece.encoding), 0));
  let offset = 0;
  for (const piece of encoded) offset += bytes.write(piece.text, offset, piece.encoding);
  return bytes;
}
