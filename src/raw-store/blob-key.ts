// Blob keys: chosen by the store when a write begins (the intake id is only known at the end of
// DATA), random so that two listeners never collide, and safe as a file name and an S3 key.
import { randomUUID } from 'node:crypto';

/** Where a file store keeps writes that are not committed yet (same directory tree: rename is atomic). */
export const INCOMPLETE_PREFIX = '.incoming/';

export function newBlobKey(): string {
  return `${randomUUID()}.eml`;
}

/** A key the stores hand out: a committed blob, a probe, or an incomplete write (file store). */
export function isBlobKey(key: string): boolean {
  return /^(\.incoming\/)?\.?[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9]+)?$/.test(key);
}
