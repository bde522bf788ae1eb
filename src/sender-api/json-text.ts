// A request body as JSON text. Every Base64Data in the body's arrays and plain objects is left
// out of JSON.stringify (a marker string stands in for it) and its base64 is put into the text
// where the marker was: base64 needs no JSON escaping, so JSON.stringify need not scan it. The
// result is a string, written to the socket as is (http-fetch.ts): building a Buffer here
// instead made the worker's V8 run about twice as many full collections per letter (measured
// with --trace-gc over 1 MB and 10 MB letters), which cost more than the copy it saved.
// The text is ASCII only (non-ASCII characters as \uXXXX escapes, which JSON allows), so that
// its UTF-8 bytes are its characters' one byte each: the socket takes it without UTF-8 encoding.
import { randomUUID } from 'node:crypto';
import { Base64Data } from './base64-data.js';

export function jsonText(value: unknown): string {
  const documents: Base64Data[] = [];
  // A fresh marker per body: no text of the letter can hold it by chance.
  const nonce = randomUUID();
  const markerOf = (index: number): string => `${nonce}:${index}`;
  // A copy of the body's arrays and plain objects with markers in place of the documents (no
  // replacer function: it would take JSON.stringify off its fast path for the rest of the text).
  const withMarkers = (field: unknown): unknown => {
    if (field instanceof Base64Data) return markerOf(documents.push(field) - 1);
    if (Array.isArray(field)) return field.map(withMarkers);
    if (typeof field !== 'object' || field === null || Object.getPrototypeOf(field) !== Object.prototype) return field;
    return Object.fromEntries(Object.entries(field).map(([name, inner]) => [name, withMarkers(inner)]));
  };
  const text = asciiOnly(JSON.stringify(withMarkers(value)));
  if (documents.length === 0) return text;

  // The markers appear in the order they were made (JSON.stringify keeps it), each inside quotes.
  const pieces: string[] = [];
  let from = 0;
  documents.forEach((document, index) => {
    const marker = markerOf(index);
    const at = text.indexOf(`"${marker}"`, from);
    if (at === -1) throw new Error('a document marker is missing from the JSON text');
    pieces.push(text.slice(from, at + 1), document.toString()); // up to and with the opening quote, then the base64
    from = at + 1 + marker.length; // the closing quote comes next
  });
  pieces.push(text.slice(from));
  return pieces.join('');
}

/** JSON text with every character above U+007F as its \uXXXX escape (a pair for astral ones): the same JSON value. */
function asciiOnly(text: string): string {
  return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
