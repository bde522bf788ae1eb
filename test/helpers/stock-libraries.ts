// Setup of the stock-library run (vitest.stock.config.ts): what the composition roots do with
// FAST_PATHS=off, for the tests that call the listener's and worker's modules directly. The
// gateways the tests start read FAST_PATHS=off from the environment (helpers/gateway.ts).
import { useFastPaths } from '../../src/fast-paths/index.js';

useFastPaths(false);
