// Strict base64 (RFC 4648 §4): the standard alphabet, length a multiple of 4, `=` padding only
// at the end, no white space or line breaks. The text's UTF-8 bytes go through the shared
// byte scan: any character outside ASCII becomes bytes outside the alphabet.
import { countBase64Alphabet } from '../net/base64-scan.js';

const PAD = 61; // =

export function isStrictBase64(text: string): boolean {
  const length = text.length;
  if (length === 0 || length % 4 !== 0) return false;
  let padding = 0;
  if (text.charCodeAt(length - 1) === PAD) padding = text.charCodeAt(length - 2) === PAD ? 2 : 1;
  const end = length - padding;
  // every byte the alphabet: a line end would be counted out, a non-ASCII character adds bytes
  return countBase64Alphabet(Buffer.from(text.slice(0, end), 'utf8')) === end;
}
