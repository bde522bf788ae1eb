// RAW_STORE_S3_SSE: server-side encryption asked for on every put of the S3 store (a single
// PutObject, and CreateMultipartUpload for a large message; its parts inherit it), added to the
// client's requests as a middleware so the store's own calls stay as they are.
import type { S3Client } from '@aws-sdk/client-s3';

export type S3Sse = { readonly mode: 'AES256' } | { readonly mode: 'aws:kms'; readonly kmsKeyId: string | undefined };

const PUTS = new Set(['PutObjectCommand', 'CreateMultipartUploadCommand']);

export function sseFields(sse: S3Sse): Record<string, string> {
  if (sse.mode === 'AES256') return { ServerSideEncryption: 'AES256' };
  return { ServerSideEncryption: 'aws:kms', ...(sse.kmsKeyId === undefined ? {} : { SSEKMSKeyId: sse.kmsKeyId }) };
}

export function askForServerSideEncryption(client: S3Client, sse: S3Sse): void {
  const fields = sseFields(sse);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (PUTS.has(context.commandName ?? '') && typeof args.input === 'object' && args.input !== null) Object.assign(args.input, fields);
      return next(args);
    },
    { step: 'initialize', name: 'letterIntakeServerSideEncryption' },
  );
}
