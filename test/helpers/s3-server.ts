// A real S3-compatible server on loopback for tests: s3rver (an npm package) stands in for an
// object store (AWS S3, MinIO, R2...). The gateway's code talks to it through the same AWS SDK
// calls; only the client settings below are the test's, the rest is the SDK's standard behaviour.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { S3ClientConfig } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export const TEST_BUCKET = 'letter-intake-test';

export interface S3Server {
  readonly endpoint: string;
  /** Client settings for this server (what AWS_ENDPOINT_URL_S3 and friends say in production). */
  readonly client: S3ClientConfig;
  /** The same as environment variables for a gateway process (the SDK's standard names). */
  readonly env: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startS3Server(): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'letter-intake-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: TEST_BUCKET }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    client: {
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      // s3rver predates the SDK's default CRC checksums; real stores accept either setting.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    },
    env: {
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      RAW_STORE_S3_PATH_STYLE: 'true',
    },
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A fresh prefix per test inside the shared test bucket. */
export function randomS3Url(): string {
  return `s3://${TEST_BUCKET}/t-${randomBytes(6).toString('hex')}`;
}
