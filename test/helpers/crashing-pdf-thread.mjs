// A checker thread that dies on its first PDF without hitting a limit: stands in for a bug.
import { parentPort } from 'node:worker_threads';

parentPort?.on('message', () => process.exit(3));
