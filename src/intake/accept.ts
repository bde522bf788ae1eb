// Durable acceptance: raw message committed to the raw store, record stored and job queued (both acknowledged by Redis, and
// by REDIS_REPLICAS_ACK replicas), then the raw store's `accepted/` marker written, before the caller may answer 250.
// Idempotent: the same message again finds the first intake.

import type { Queue } from 'bullmq';
import { withTimeout } from '../bounded.js';
import { IntakeError } from '../errors.js';
import type { AckSession, ReplicaAck } from '../redis/replica-ack.js';
import { acceptedMarker, type IntakeMarkers } from './markers.js';
import { type AddIntakeJob, type IntakeJobData, intakeJobOptions } from './queue.js';
import type { StoredBody } from './raw-spool.js';
import type { NewIntake } from './record.js';
import { replayIntake } from './replay.js';
import { requeueJob } from './requeue.js';
import type { Admission, SenderLimiter } from './sender-limits.js';
import type { IntakeStore } from './store.js';

export interface AcceptDeps {
  readonly store: IntakeStore;
  readonly queue: Queue<IntakeJobData>;
  /** Adds a new intake's job (group commit: many in one round trip); absent: the queue's own add. */
  readonly addJob?: AddIntakeJob | undefined;
  readonly clock: () => number;
  readonly attempts: number;
  /** Bound on the whole store-and-queue step, replicas included; past it the client is told 451 4.3.0. */
  readonly timeoutMs: number;
  /** The replicas that must hold the record and job before 250 (absent: the primary's word is enough). */
  readonly replicas?: ReplicaAck | undefined;
  /** The raw store's markers: `accepted/` is the record of last resort that a 250 may have been sent. */
  readonly markers?: IntakeMarkers | undefined;
  /** Each sender's limits (sender-limits.ts): checked and counted before the bytes are committed. */
  readonly limits?: Pick<SenderLimiter, 'admit' | 'release'> | undefined;
}

/** What the listener hands over: the authentication header fields and the body. */
export interface IncomingMessage {
  /** Received-SPF and Authentication-Results, stored in front of the message. */
  readonly headers: string;
  /** Commits the body to the raw store and names its blob: inside the bound, as it may wait on the store. */
  readonly body: () => Promise<StoredBody>;
}

export interface Accepted {
  readonly intakeId: string;
  /** True when this message had been accepted before (a re-delivery). */
  readonly duplicate: boolean;
  /** The 250 reply's text when it is not "queued as" (a self-test's summary). */
  readonly reply?: string;
}

export async function acceptIntake(deps: AcceptDeps, intake: NewIntake, message: IncomingMessage): Promise<Accepted> {
  let answered = false;
  /** Past the writes, waiting for the replicas: a time-out then says so. */
  let replicating = false;
  /** Called in the timer: from then on the writes still running know the client was answered. */
  const timedOut = (): IntakeError => {
    answered = true;
    return replicating
      ? new IntakeError('ReplicasBehind', 'the replicas did not acknowledge the intake in time', { intakeId: intake.intakeId })
      : new IntakeError('StorageUnavailable', 'storage did not answer in time, try again later');
  };
  const deadline = deps.clock() + deps.timeoutMs;
  // Before the first write or read: the acknowledgement proves its server holds what follows.
  const session = deps.replicas?.begin();
  try {
    const stored = storeAndQueue(deps, intake, message, () => answered).then(async (accepted) => {
      replicating = true;
      await heldByReplicas(session, accepted, deadline);
      replicating = false;
      // Past the bound the client was told 451: `accepted/` ("may have been answered 250") is
      // not written, whatever landed in Redis meanwhile (the MTA's retry writes it).
      if (answered) throw new IntakeError('StorageUnavailable', 'storage answered after the bound');
      await markAccepted(deps, intake, accepted);
      return { intakeId: accepted.intakeId, duplicate: accepted.duplicate };
    });
    return await withTimeout(stored, deps.timeoutMs, 'the intake', timedOut);
  } catch (err) {
    if (err instanceof IntakeError) throw err;
    throw new IntakeError('StorageUnavailable', 'storage unavailable, try again later', { cause: err });
  }
}

/**
 * What the store-and-queue step did: the blob the record points at (this call's copy, or for a
 * re-delivery the earlier copy the record kept), and whether this call made the record point there.
 */
interface Stored extends Accepted {
  readonly blobKey: string;
  /** The header lines the record puts in front of that blob. */
  readonly rawHeaders: string;
  readonly pointsAtBlob: boolean;
}

async function storeAndQueue(deps: AcceptDeps, intake: NewIntake, message: IncomingMessage, answered451: () => boolean): Promise<Stored> {
  const { intakeId } = intake;
  // Over a limit, nothing is written; a count whose intake is not made after all is taken back.
  const admission: Admission = (await deps.limits?.admit(intake)) ?? { kind: 'unlimited' };
  const takeBack = (): void => void deps.limits?.release(admission).catch(() => undefined);
  const body = await message.body().catch((err: unknown) => {
    takeBack();
    throw err;
  });
  const { blobKey } = body;
  const { headers } = message;
  const created = await deps.store.create(intake, { headers: message.headers, body }, deps.clock()).catch((err: unknown) => {
    takeBack();
    throw err;
  });
  if (!created.created) takeBack(); // a re-delivery after all: it counts nothing
  // A record Redis wrote after the client was told 451 goes no further: the message stays as a
  // stop between the record and the job leaves it (received, or failed and replayable), and the
  // MTA's retry, the same intake, queues it.
  if (answered451()) throw new IntakeError('StorageUnavailable', 'storage answered after the bound');
  if (!created.created && created.requeue) {
    // The intake had failed: queued anew as a replay does it, the record first. A stop before
    // leaves it failed and replayable; a replay that finds it moved on means another took it.
    await replayIntake(deps, intakeId);
    return { intakeId, duplicate: true, blobKey, rawHeaders: headers, pointsAtBlob: true };
  }
  // A rejected intake fares the same again: the sender hears so instead of a 250 that leads nowhere.
  if (!created.created && created.state === 'rejected') throw await alreadyRejected(deps, intakeId);
  // The record kept the copy it points at; this call's copy is an orphan for the sweep.
  const recordBlob =
    created.created || created.rawKey === undefined
      ? { blobKey, rawHeaders: headers }
      : { blobKey: created.rawKey, rawHeaders: created.rawHeaders };
  // A record past `received` means the job was queued before: answer with the first id.
  if (!created.created && created.state !== 'received') return { intakeId, duplicate: true, ...recordBlob, pointsAtBlob: false };
  const job = { intakeId, from: intake.from, sizeBytes: intake.sizeBytes };
  if (created.created) {
    const options = intakeJobOptions(intakeId, deps.attempts);
    await (deps.addJob === undefined ? deps.queue.add('intake', job, options) : deps.addJob(job, options));
  } else {
    // An earlier attempt stopped before `queued`: its job, if any, is kept while it can still run.
    await requeueJob(deps.queue, job, deps.attempts);
  }
  await deps.store.transition(intakeId, ['received'], 'queued', deps.clock());
  return { intakeId, duplicate: !created.created, ...recordBlob, pointsAtBlob: created.created };
}

async function alreadyRejected(deps: AcceptDeps, intakeId: string): Promise<IntakeError> {
  const reasonCode = (await deps.store.get(intakeId))?.reasonCode ?? 'unknown reason';
  return new IntakeError(
    'AlreadyRejected',
    `this message was rejected before as ${intakeId} (${reasonCode}); correct it and send it again`,
    {
      intakeId,
    },
  );
}

/**
 * The last write before 250: `accepted/` names the blob the record points at. A re-delivery of an
 * intake whose record points at an earlier copy keeps the marker it finds (the first acceptance
 * wrote it) and writes one, naming that earlier copy, only when there is none (the first was
 * answered 451 before its marker).
 */
async function markAccepted(deps: AcceptDeps, intake: NewIntake, stored: Stored): Promise<void> {
  if (deps.markers === undefined) return;
  const marker = acceptedMarker(intake, stored.blobKey, stored.rawHeaders, deps.clock());
  if (stored.pointsAtBlob) await deps.markers.putAccepted(marker);
  else await deps.markers.putAcceptedIfAbsent(marker);
}

/**
 * The record and job (or, for a re-delivery, the record it found) held by the replicas wanted
 * before 250; fewer in time is a 451, and the MTA's retry finds the intake or, after a failover
 * that lost it, stores it anew.
 */
async function heldByReplicas(session: AckSession | undefined, accepted: Accepted, deadline: number): Promise<void> {
  if (session === undefined) return;
  const verdict = await session.acknowledge(deadline);
  if (verdict.kind === 'acknowledged') return;
  const text = verdict.elsewhere
    ? 'the server that waited for the replicas does not hold the intake (a change of primary)'
    : `${verdict.replicas} of ${verdict.wanted} replicas acknowledged the intake in time`;
  throw new IntakeError('ReplicasBehind', text, { intakeId: accepted.intakeId });
}
