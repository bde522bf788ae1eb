// A checker thread that starts, then dies on its first PDF without hitting a limit: stands in for a bug.
import { parentPort } from 'node:worker_threads';

parentPort?.postMessage({ ready: true });
parentPort?.on('message', () => process.exit(3));
