// Loaded into a gateway's processes through NODE_OPTIONS=--import: faults a test turns on in a
// listener process (node:cluster worker) by creating a file in LISTENER_FAULTS_DIR.
// - `fail-dir-fsync`: the next fsync of a directory, in whichever listener process comes first, fails
//   with EIO (a broken disk under GROUP_COMMIT); the file is taken, so only that one fails. Both
//   ways of syncing a directory are covered: a FileHandle's sync and fs.fsync on a descriptor.
// - `hold-start`: the process waits before its entry runs, while the file exists (a slow start);
//   it writes its pid to `held` first.
import cluster from 'node:cluster';
import fs, { existsSync, renameSync, statSync, writeFileSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';

const dir = process.env.LISTENER_FAULTS_DIR;
if (cluster.isWorker && dir !== undefined) {
  const open = fsPromises.open;
  fsPromises.open = async (path, flags, mode) => {
    const fh = await open(path, flags, mode);
    if (flags === 'r' && statSync(path).isDirectory()) {
      const sync = fh.sync.bind(fh);
      fh.sync = () => {
        if (take(join(dir, 'fail-dir-fsync'))) return Promise.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' }));
        return sync();
      };
    }
    return fh;
  };
  // The file store keeps its directories' descriptors (fs.open and fs.fsync by callback).
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
