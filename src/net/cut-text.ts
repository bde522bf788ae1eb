// Text from outside, cut to a number of UTF-8 bytes before it is kept: a record, a label or a log
// field must not grow with what a stranger sends.

/** `text` if it fits in `maxBytes` of UTF-8, else its longest prefix that does (never half a character). */
export function cutUtf8(text: string, maxBytes: number): string {
  // a UTF-16 unit is at most 3 UTF-8 bytes: shorter strings always fit, without encoding them
  if (text.length * 3 <= maxBytes) return text;
  // ... and at least 1: the answer lies within the first maxBytes units (a megabyte subject is
  // not encoded whole); a high surrogate cut from its pair at the end is left out
  let head = text.slice(0, maxBytes);
  const last = head.charCodeAt(head.length - 1);
  if (head.length < text.length && last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  const bytes = Buffer.from(head, 'utf8');
  if (bytes.length <= maxBytes) return head;
  let end = maxBytes;
  // step back over continuation bytes (10xxxxxx) to the start of the character that was cut
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}
