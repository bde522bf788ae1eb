// Where a message's body begins: the one reading of it that the listener, the content digest and
// the raw store's sweep share, so they compute the same intake id from the same bytes.

/** The header block alone: everything before the first empty line (or all of it). */
export function headerBlockOf(raw: Buffer): Buffer {
  const end = /\r?\n\r?\n/.exec(raw.toString('latin1'));
  return end === null ? raw : raw.subarray(0, end.index);
}
