// The raw store: where accepted messages are kept until RAW_RETENTION_DAYS after their intake ended
// (RAW_STORE_URL: a directory or an S3 bucket; intakes from before it kept theirs in Redis).
import { randomBytes } from 'node:crypto';
import { type RawStore, WRITE_ONCE_UNPROTECTED } from '../raw-store/raw-store.js';
import type { RedisClient } from '../redis/connections.js';
import { type CheckResult, fail, ok, warn } from './result.js';

const AREA = 'Raw store';

export interface RawStoreProbe {
  /** Where raw messages are kept, in words ("Redis at …", "file:///var/mail"). */
  readonly location: string;
  /** Writes a probe object, reads it back, deletes it; resolves to the bytes read. */
  roundTrip(probe: Buffer): Promise<Buffer | undefined>;
  /**
   * Writes a write-once probe marker, tries to write it again, reads it back by key and deletes
   * it: what `recover` relies on (docs/design.md §13). Absent where raw mail is in Redis.
   */
  markerRoundTrip?(probe: string): Promise<MarkerRoundTrip>;
  /** See RawStore.keepsOldVersions; absent where nothing keeps old versions. */
  keepsOldVersions?(): Promise<boolean>;
}

export interface MarkerRoundTrip {
  readonly first: 'written' | 'exists';
  readonly second: 'written' | 'exists';
  readonly read: string | undefined;
  /** Whether write-once is the store's own exclusive create (false: a read before and after the put). */
  readonly exclusive: boolean;
}

/** The configured raw store: a probe blob written, committed, read back and deleted. */
export function rawStoreProbe(store: RawStore): RawStoreProbe {
  const versions = store.keepsOldVersions;
  return {
    location: store.location,
    ...(versions === undefined ? {} : { keepsOldVersions: () => versions() }),
    async roundTrip(probe) {
      const write = store.begin();
      await write.write(probe);
      await write.commit();
      try {
        return await store.readBuffer(write.key);
      } finally {
        await store.delete(write.key);
      }
    },
    async markerRoundTrip(probe) {
      // Under letter/, which only the worker reads by key: no listing ever meets the probe.
      const id = `doctor-probe-${randomBytes(6).toString('hex')}`;
      try {
        const first = await store.putMarker('letter', id, probe, 'once');
        const second = await store.putMarker('letter', id, `${probe} again`, 'once');
        return { first, second, read: await store.getMarker('letter', id), exclusive: await store.exclusiveCreate() };
      } finally {
        await store.deleteMarker('letter', id);
      }
    },
  };
}

/** Raw messages in Redis under the gateway's prefix; the probe key expires on its own. */
export function redisRawStoreProbe(redis: RedisClient, prefix: string, where: string): RawStoreProbe {
  return {
    location: `Redis at ${where} (beside the intake records)`,
    async roundTrip(probe) {
      const key = `${prefix}:doctor:${randomBytes(6).toString('hex')}`;
      await redis.set(key, probe, 'PX', 60_000);
      const read = await redis.getBuffer(key);
      await redis.del(key);
      return read ?? undefined;
    },
  };
}

/** `sealed`: master keys are configured (a rotation's `rekey` leaves the old key's ciphertext in old versions). */
export async function checkRawStore(probe: RawStoreProbe, retentionDays: number, sealed = false): Promise<CheckResult[]> {
  const bytes = randomBytes(32);
  let read: Buffer | undefined;
  try {
    read = await probe.roundTrip(bytes);
  } catch (err) {
    return [fail(AREA, 'writable and readable', `${probe.location}: ${err instanceof Error ? err.message : String(err)}`)];
  }
  const same = read?.equals(bytes);
  return [
    same
      ? ok(AREA, 'writable and readable', probe.location)
      : fail(AREA, 'writable and readable', `${probe.location}: what was written did not read back`),
    ...(probe.markerRoundTrip === undefined ? [] : [await checkMarkers(probe, probe.markerRoundTrip)]),
    ok(AREA, 'retention', `raw mail is deleted ${retentionDays} days after its intake ended (RAW_RETENTION_DAYS)`),
    ...(probe.keepsOldVersions === undefined ? [] : await checkOldVersions(probe, probe.keepsOldVersions, sealed)),
  ];
}

/** A versioned bucket keeps what retention, erase and rekey remove as noncurrent versions: said, with the rule that ends them. */
async function checkOldVersions(probe: RawStoreProbe, keepsOldVersions: () => Promise<boolean>, sealed: boolean): Promise<CheckResult[]> {
  const name = 'old versions';
  try {
    if (!(await keepsOldVersions())) return [];
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return [warn(AREA, name, `${probe.location}: could not ask whether the bucket keeps versions (s3:GetBucketVersioning): ${why}`)];
  }
  const rekey = sealed ? "; after a key rotation, `rekey` leaves the old key's ciphertext in them" : '';
  return [
    warn(
      AREA,
      name,
      `${probe.location}: the bucket has versioning: deleted raw mail and markers (retention, erase) stay as noncurrent versions${rekey}. ` +
        'Add a NoncurrentVersionExpiration lifecycle rule (docs/deploying.md)',
    ),
  ];
}

/** The markers recover relies on: a write-once marker is read back by key at once and a second write-once finds it. */
async function checkMarkers(probe: RawStoreProbe, roundTrip: NonNullable<RawStoreProbe['markerRoundTrip']>): Promise<CheckResult> {
  const text = randomBytes(16).toString('hex');
  const name = 'markers read after write, written once';
  try {
    const result = await roundTrip(text);
    const held = result.first === 'written' && result.second === 'exists' && result.read === text;
    if (held && result.exclusive) return ok(AREA, name, probe.location);
    if (held) return fail(AREA, name, `${probe.location}: ${WRITE_ONCE_UNPROTECTED}`);
    const what = result.read !== text ? 'a marker just written did not read back' : 'a second write-once marker was not refused';
    return fail(AREA, name, `${probe.location}: ${what}; letter-intake recover cannot rely on it after a Redis loss (docs/design.md §13)`);
  } catch (err) {
    return fail(AREA, name, `${probe.location}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
