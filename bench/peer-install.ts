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
  await installPeer(HARAKA_HOME, MANIFEST, 'Haraka', HARAKA_VERSION, log);
  return HARAKA_HOME;
}

export const PUBLISHED_SMTP_SERVER_HOME = join(REPO, 'bench', '.peers', 'smtp-server');

/**
 * smtp-server as published, at the version the project uses, for the sink: the project's own
 * copy carries a patch (patches/smtp-server+*.patch) that makes DATA parsing faster, and the
 * sink stays the ceiling the goals were set against. Returns the module the sink imports.
 */
export async function installPublishedSmtpServer(log: (line: string) => void): Promise<string> {
  const version = versionOf(readFileSync(join(REPO, 'node_modules', 'smtp-server', 'package.json'), 'utf8'));
  if (version === undefined) throw new Error('no version in node_modules/smtp-server/package.json');
  const manifest = {
    name: 'letter-intake-bench-published-smtp-server',
    private: true,
    description: 'smtp-server as published, for the sink of `npm run bench`; installed by bench/peer-install.ts',
    dependencies: { 'smtp-server': version },
  };
  await installPeer(PUBLISHED_SMTP_SERVER_HOME, manifest, 'smtp-server', version, log);
  return join(PUBLISHED_SMTP_SERVER_HOME, 'node_modules', 'smtp-server', 'dist', 'esm', 'smtp-server.js');
}

async function installPeer(home: string, manifest: object, name: string, version: string, log: (line: string) => void): Promise<void> {
  const installed = join(home, 'node_modules', name, 'package.json');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  if (existsSync(installed) && versionOf(readFileSync(installed, 'utf8')) === version) return;
  log(`installing ${name} ${version} into ${home} (once)`);
  await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock', '--ignore-scripts'], {
    cwd: home,
    timeout: 600_000,
  });
  if (!existsSync(installed)) throw new Error(`${name} did not install into ${home}`);
}

function versionOf(packageJson: string): string | undefined {
  const parsed: unknown = JSON.parse(packageJson);
  return typeof parsed === 'object' && parsed !== null && 'version' in parsed && typeof parsed.version === 'string'
    ? parsed.version
    : undefined;
}
