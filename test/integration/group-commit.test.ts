// Group commit in the file raw store, seen through the listener: concurrent sessions over SMTP
// into a store whose file system calls are recorded (test/helpers/recording-fs.ts), beside the
// moment each client got its reply. The first directory fsync is held until every session has
// renamed its blob, so the others gather for one shared fsync.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIXTURE_SESSION } from '../../fixtures/catalog.js';
import { fileRawStore } from '../../src/raw-store/file-store.js';
import type { GroupCommitSettings } from '../../src/raw-store/group-sync.js';
import { intakeIdOf, PROCESSING_ADDRESS, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { type FsEvent, type RecordingFs, recordingFs, type SyncHook } from '../helpers/recording-fs.js';
import { signedLetter } from '../helpers/signed-letter.js';
import { sendOnce } from '../helpers/smtp-client.js';

const SESSIONS = 6;
/** A window no test waits out: a batch starts when the fsync before it ends, or on its count. */
const GROUP = { maxWaitMs: 60_000, max: 32 };

let gateway: TestGateway | undefined;
let dir: string | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

async function gatewayOn(
  makeHook: (recorded: () => RecordingFs, dir: string) => SyncHook,
  groupCommit: GroupCommitSettings | 'off' = GROUP,
) {
  const rawDir = mkdtempSync(join(tmpdir(), 'letter-intake-group-'));
  dir = rawDir;
  let recording: RecordingFs | undefined;
  const recorded = (): RecordingFs => {
    if (recording === undefined) throw new Error('no recording yet');
    return recording;
  };
  recording = recordingFs(makeHook(recorded, rawDir));
  const rawStore = fileRawStore({ dir: rawDir, timeoutMs: 5000, fs: recording.fs, ...(groupCommit === 'off' ? {} : { groupCommit }) });
  gateway = await startTestGateway({ rawStore });
  return { gateway, fs: recording, rawDir };
}

/** Sends `count` distinct letters at once; each reply is logged in the file system's order as it arrives. */
async function sendTogether(g: TestGateway, fs: RecordingFs, count: number): Promise<{ code: number; text: string }[]> {
  const letters = await Promise.all(Array.from({ length: count }, (_, i) => signedLetter({ title: `Group commit ${i + 1}` })));
  return Promise.all(
    letters.map(async (raw) => {
      const replies = await sendOnce(g.port, { from: 'bounce@acme.example', to: [PROCESSING_ADDRESS], raw, helo: FIXTURE_SESSION.helo });
      const reply = replies.data ?? { code: 0, text: 'no reply to DATA' };
      fs.note('reply', String(reply.code), reply.text);
      return reply;
    }),
  );
}

const renamesInto = (events: readonly FsEvent[], rawDir: string): FsEvent[] =>
  events.filter((e) => (e.op === 'rename' || e.op === 'link') && e.phase === 'end' && e.to !== undefined && join(e.to, '..') === rawDir);

/** An fsync of `syncedDir` that began after `after` and whose own end came before `before`, if any. */
function coveringFsync(events: readonly FsEvent[], syncedDir: string, after: number, before: number): boolean {
  const starts = events.filter((e) => e.op === 'sync' && e.path === syncedDir && e.phase === 'start' && e.seq > after);
  return starts.some((start) => {
    const end = events.find((e) => e.call === start.call && e.phase === 'end');
    return end !== undefined && end.seq < before;
  });
}

/** Whether two fsyncs of `syncedDir` ran side by side: a later one began before an earlier one's end. */
function overlapped(events: readonly FsEvent[], syncedDir: string): boolean {
  const syncs = events.filter((e) => e.op === 'sync' && e.path === syncedDir);
  return syncs.some((end) => end.phase !== 'start' && syncs.some((s) => s.phase === 'start' && s.call > end.call && s.seq < end.seq));
}

/** Every reply is 250, and an fsync of the blob directory that began after its rename ended, by its own end, before it. */
async function expectEachCovered(g: TestGateway, fs: RecordingFs, rawDir: string, replies: readonly { code: number; text: string }[]) {
  expect(replies.map((r) => r.code)).toEqual(Array(replies.length).fill(250));
  for (const reply of replies) {
    const record = await g.store.get(intakeIdOf(reply.text));
    const answered = fs.events.find((e) => e.op === 'reply' && e.to === reply.text)?.seq ?? -1;
    const renamed = fs.events.find((e) => e.op === 'rename' && e.phase === 'end' && e.to === join(rawDir, record?.rawKey ?? 'none'));
    expect(coveringFsync(fs.events, rawDir, renamed?.seq ?? Infinity, answered), `${reply.text}: a directory fsync covers its rename`).toBe(
      true,
    );
  }
}

/** The first fsync of the blob directory is held until every session has renamed its blob. */
const holdFirstBlobFsync =
  (sessions: number, thenFailNext = false): ((recorded: () => RecordingFs, dir: string) => SyncHook) =>
  (recorded, rawDir) => {
    let blobFsyncs = 0;
    return (op, path) => {
      if (op !== 'sync' || path !== rawDir) return undefined;
      blobFsyncs += 1;
      if (blobFsyncs === 1) return recorded().until((events) => renamesInto(events, rawDir).length >= sessions);
      if (blobFsyncs === 2 && thenFailNext) return Promise.reject(new Error('EIO: the disk failed the fsync'));
      return undefined;
    };
  };

describe('group commit in the file raw store', () => {
  it('answers every 250 after an fsync of the directory that began after its rename, and of accepted/ after its marker', async () => {
    const { gateway: g, fs, rawDir } = await gatewayOn(holdFirstBlobFsync(SESSIONS));
    const replies = await sendTogether(g, fs, SESSIONS);
    expect(replies.map((r) => r.code)).toEqual(Array(SESSIONS).fill(250));
    for (const reply of replies) {
      const intakeId = intakeIdOf(reply.text);
      const record = await g.store.get(intakeId);
      const blob = join(rawDir, record?.rawKey ?? 'none');
      const answered = fs.events.find((e) => e.op === 'reply' && e.to === reply.text)?.seq ?? -1;
      const renamed = fs.events.find((e) => e.op === 'rename' && e.phase === 'end' && e.to === blob);
      const dataSynced = fs.events.find(
        (e) => e.op === 'datasync' && e.phase === 'end' && e.path === join(rawDir, '.incoming', record?.rawKey ?? ''),
      );
      expect(renamed, `${intakeId}: its blob renamed into place`).toBeDefined();
      expect(dataSynced, `${intakeId}: its bytes synced`).toBeDefined();
      expect(dataSynced?.seq ?? Infinity, `${intakeId}: its bytes synced before the rename`).toBeLessThan(renamed?.seq ?? -1);
      expect(coveringFsync(fs.events, rawDir, renamed?.seq ?? Infinity, answered), `${intakeId}: a directory fsync covers its rename`).toBe(
        true,
      );
      const accepted = join(rawDir, 'accepted');
      const marked = fs.events.find(
        (e) => (e.op === 'rename' || e.op === 'link') && e.phase === 'end' && e.to === join(accepted, intakeId),
      );
      expect(marked, `${intakeId}: accepted/ written`).toBeDefined();
      expect(
        coveringFsync(fs.events, accepted, marked?.seq ?? Infinity, answered),
        `${intakeId}: an fsync of accepted/ covers its marker`,
      ).toBe(true);
    }
    // one fsync for the first session, one shared by the others (gathered while the first ran)
    expect(fs.events.filter((e) => e.op === 'sync' && e.phase === 'start' && e.path === rawDir)).toHaveLength(2);
  });

  it('answers every session of a batch whose fsync failed 451, and every later one until restart', async () => {
    const { gateway: g, fs, rawDir } = await gatewayOn(holdFirstBlobFsync(SESSIONS, true));
    const replies = await sendTogether(g, fs, SESSIONS);
    // The first session's own fsync succeeded; the store broke before its accepted/ marker, so
    // it too is answered 451 unless its marker was synced first: a 250, if any, is its alone.
    const firstBlob = renamesInto(fs.events, rawDir)[0]?.to?.slice(rawDir.length + 1);
    for (const reply of replies.filter((r) => r.code === 250)) {
      expect((await g.store.get(intakeIdOf(reply.text)))?.rawKey).toBe(firstBlob);
    }
    expect(replies.filter((r) => r.code === 451).length).toBeGreaterThanOrEqual(SESSIONS - 1);
    expect(replies.filter((r) => r.code !== 250 && r.code !== 451)).toEqual([]);
    const [after] = await sendTogether(g, fs, 1);
    expect(after?.code).toBe(451);
    await expect(g.rawStore.check()).rejects.toThrow(/fsync .* failed/);
    // the directory is not fsynced again once an fsync of it failed
    expect(fs.events.filter((e) => e.op === 'sync' && e.phase === 'start' && e.path === rawDir)).toHaveLength(2);
  });

  it('runs batches of `max` beside the held fsync, and covers each rename by an fsync that ended after it began', async () => {
    const { gateway: g, fs, rawDir } = await gatewayOn(holdFirstBlobFsync(SESSIONS), { maxWaitMs: 60_000, max: 2 });
    const replies = await sendTogether(g, fs, SESSIONS);
    expect(overlapped(fs.events, rawDir), 'fsyncs of the blob directory ran side by side').toBe(true);
    await expectEachCovered(g, fs, rawDir, replies);
  });

  it('starts a gathered batch beside the held fsync once GROUP_COMMIT_MAX_WAIT_MS passed', async () => {
    // max is out of reach: only the window can start a second fsync while the first is held
    const {
      gateway: g,
      fs,
      rawDir,
    } = await gatewayOn(
      (recorded, dir) => {
        let blobFsyncs = 0;
        return (op, path) => {
          if (op !== 'sync' || path !== dir) return undefined;
          blobFsyncs += 1;
          if (blobFsyncs > 1) return undefined;
          return recorded().until(
            (events) =>
              renamesInto(events, dir).length >= SESSIONS &&
              events.filter((e) => e.op === 'sync' && e.phase === 'start' && e.path === dir).length >= 2,
          );
        };
      },
      { maxWaitMs: 5, max: 32 },
    );
    const replies = await sendTogether(g, fs, SESSIONS);
    expect(overlapped(fs.events, rawDir), 'a second fsync began while the first was held').toBe(true);
    await expectEachCovered(g, fs, rawDir, replies);
  });

  it('starts a lone session’s fsync at once: it does not wait for the window', async () => {
    const { gateway: g, fs, rawDir } = await gatewayOn(() => () => undefined);
    const [reply] = await sendTogether(g, fs, 1);
    expect(reply?.code).toBe(250);
    expect(fs.events.filter((e) => e.op === 'sync' && e.phase === 'end' && e.path === rawDir)).toHaveLength(1);
  });

  it('with group commit off, fsyncs the file and the directory for each commit, as ever', async () => {
    const { gateway: g, fs, rawDir } = await gatewayOn(() => () => undefined, 'off');
    const replies = await sendTogether(g, fs, 3);
    expect(replies.map((r) => r.code)).toEqual([250, 250, 250]);
    expect(fs.events.filter((e) => e.op === 'sync' && e.phase === 'start' && e.path === rawDir)).toHaveLength(3);
    expect(fs.events.filter((e) => e.op === 'datasync')).toHaveLength(0);
  });
});
