// Loaded into a gateway's processes through NODE_OPTIONS=--import: faults a test turns on in a
// listener process (node:cluster worker) by creating a file in LISTENER_FAULTS_DIR.
// - `fail-dir-fsync`: the next fsync of a directory, in whichever listener process comes first, fails
//   with EIO (a broken disk under GROUP_COMMIT); the file is taken, so only that one fails.
// - `hold-start`: the process waits before its entry runs, while the file exists (a slow start);
//   it writes its pid to `held` first.
import cluster from 'node:cluster';
import fs, { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';

const dir = process.env.LISTENER_FAULTS_DIR;
if (cluster.isWorker && dir !== undefined) {
  // The file store keeps its directories' descriptors, opened and synced by callback (directory-handles.ts).
  const directories = new Set();
  const openCallback = fs.open;
  fs.open = (path, flags, ...rest) => {
    if (typeof flags === 'function') return openCallback(path, flags);
    const done = rest.pop();
    openCallback(path, flags, ...rest, (err, fd) => {
      if (err === null && flags === 'r' && statSync(path).isDirectory()) directories.add(fd);
      done(err, fd);
    });
  };
  const fsyncCallback = fs.fsync;
  fs.fsync = (fd, done) => {
    if (directories.has(fd) && take(join(dir, 'fail-dir-fsync'))) {
      process.nextTick(done, Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
      return;
    }
    fsyncCallback(fd, done);
  };
  const closeCallback = fs.close;
  fs.close = (fd, done) => {
    directories.delete(fd);
    closeCallback(fd, done);
  };
  syncBuiltinESMExports();
  if (existsSync(join(dir, 'hold-start'))) writeFileSync(join(dir, 'held'), String(process.pid));
  while (existsSync(join(dir, 'hold-start'))) await new Promise((r) => setTimeout(r, 50));
}

/** Whether this process took the file (renamed it away first). */
function take(path) {
  try {
    renameSync(path, `${path}.taken-${process.pid}`);
    return true;
  } catch {
    return false;
  }
}
