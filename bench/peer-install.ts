// Haraka, the peer the gateway is compared with, installed at run time into a folder of the
// bench's own (bench/.peers/haraka, git-ignored), never a dependency of the project. Two of the
// versions Haraka pins are missing from the registry reachable here, hence the overrides.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from './processes.js';

export const HARAKA_VERSION = '3.3.4';
export const HARAKA_HOME = join(REPO, 'bench', '.peers', 'haraka');

const MANIFEST = {
  name: 'letter-intake-bench-peer-haraka',
  private: true,
  description: 'Haraka for `npm run bench -- --peers`; installed by bench/peer-install.ts',
  dependencies: { Haraka: HARAKA_VERSION },
  overrides: { 'encoding-japanese': '2.4.0', libqp: '2.1.2' },
};

/** Installs Haraka unless the installed copy is the expected version; returns its folder. */
export async function installHaraka(log: (line: string) => void): Promise<string> {
  const installed = join(HARAKA_HOME, 'node_modules', 'Haraka', 'package.json');
  mkdirSync(HARAKA_HOME, { recursive: true });
  writeFileSync(join(HARAKA_HOME, 'package.json'), `${JSON.stringify(MANIFEST, null, 2)}\n`);
  if (existsSync(installed) && versionOf(readFileSync(installed, 'utf8')) === HARAKA_VERSION) return HARAKA_HOME;
  log(`installing Haraka ${HARAKA_VERSION} into ${HARAKA_HOME} (once)`);
  await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: HARAKA_HOME, timeout: 600_000 });
  if (!existsSync(installed)) throw new Error(`Haraka did not install into ${HARAKA_HOME}`);
  return HARAKA_HOME;
}

function versionOf(packageJson: string): string | undefined {
  const parsed: unknown = JSON.parse(packageJson);
  return typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string'
    ? parsed.version
    : undefined;
}
