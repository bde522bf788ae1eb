// Strict base64 (RFC 4648 §4): the standard alphabet, length a multiple of 4, `=` padding only
// at the end, no white space or line breaks. A loop rather than a regular expression, so a
// 14 MB string costs one linear pass and no backtracking stack.

function isAlphabet(c: number): boolean {
  return (
    (c >= 65 && c <= 90) || // A-Z
    (c >= 97 && c <= 122) || // a-z
    (c >= 48 && c <= 57) || // 0-9
    c === 43 || // +
    c === 47 // /
  );
}

const PAD = 61; // =

export function isStrictBase64(text: string): boolean {
  const length = text.length;
  if (length === 0 || length % 4 !== 0) return false;
  let padding = 0;
  if (text.charCodeAt(length - 1) === PAD) padding = text.charCodeAt(length - 2) === PAD ? 2 : 1;
  const end = length - padding;
  for (let i = 0; i < end; i += 1) {
    if (!isAlphabet(text.charCodeAt(i))) return false;
  }
  return true;
}
