// An API answer is read up to a cap: a broken or hostile endpoint streaming an endless body
// must not grow the worker's memory. Past the cap the connection is dropped.

/** Far above any answer of the contract (a page of letter metadata is a few hundred KiB). */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** The body as text, or undefined when it is longer than `maxBytes` (reading stops there). */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string | undefined> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
