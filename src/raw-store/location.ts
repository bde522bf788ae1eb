// RAW_STORE_URL → where raw messages live. Pure: config.ts validates with it, open-store.ts
// builds the store from it.
import { fileURLToPath } from 'node:url';

export type RawStoreLocation =
  | { readonly kind: 'file'; readonly dir: string }
  /** `prefix` is '' or ends with '/'. */
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string };

/** Parses `file:///absolute/dir` or `s3://bucket[/prefix]`; throws an Error saying what is wrong. */
export function parseRawStoreUrl(text: string): RawStoreLocation {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('must be a file:///absolute/dir or s3://bucket/prefix URL');
  }
  if (url.protocol === 'file:') {
    if (url.host !== '') throw new Error('a file URL names an absolute directory: file:///dir (three slashes)');
    if (url.search !== '' || url.hash !== '') throw new Error('a file URL takes no query or fragment');
    return { kind: 'file', dir: fileURLToPath(url) };
  }
  if (url.protocol === 's3:') {
    // RFC-ish S3 bucket naming: 3–63 lower-case letters, digits, dots and hyphens.
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(url.hostname)) throw new Error('the bucket name is not a valid S3 bucket name');
    if (url.username !== '' || url.password !== '' || url.port !== '') {
      throw new Error('an s3 URL holds no credentials or port (use the AWS SDK variables)');
    }
    if (url.search !== '' || url.hash !== '') throw new Error('an s3 URL takes no query or fragment');
    const path = decodeURIComponent(url.pathname).replace(/^\/+/, '').replace(/\/+$/, '');
    return { kind: 's3', bucket: url.hostname, prefix: path === '' ? '' : `${path}/` };
  }
  throw new Error('must be a file:///absolute/dir or s3://bucket/prefix URL');
}

/** The location as text for logs and readiness (never holds secrets). */
export function describeLocation(location: RawStoreLocation): string {
  return location.kind === 'file' ? `file://${location.dir}` : `s3://${location.bucket}/${location.prefix}`;
}
