// Where a process's CPU profile spent its time, by part of the gateway rather than by package:
// each sample goes to the nearest frame, leaf upward, whose file names a part (the raw store's
// file system calls under raw-store/, DKIM and SPF under mailauth and auth/, ...), GC and
// unattributed native time on their own lines. Reads the .cpuprofile files `npm run bench --
// --profile` writes (bench/results/profiles/<size>/<process>/), several at once side by side.
//
//   npx tsx bench/profile-parts.ts <label>=<file.cpuprofile> ...
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/**
 * First match wins, tried on each frame from the sampled one up to the root, against the frame's
 * file named as `package:<path inside node_modules>`, `gateway:<path inside dist/ or src/>` or
 * `node:<module>` (so where the checkout lies, and a package's own dist/, do not matter).
 */
const PARTS: readonly (readonly [RegExp, string])[] = [
  [/^gateway:raw-store\//, 'raw store (file system calls)'],
  [/^package:(pino|sonic-boom|thread-stream)\//, 'logging'],
  [/^package:mailauth\/|^gateway:(auth|fast-paths\/mailauth)/, 'DKIM and SPF (mailauth)'],
  [/^package:bullmq\//, 'BullMQ'],
  [/^package:(ioredis|@ioredis)\/|^gateway:redis\//, 'Redis client'],
  [/^gateway:(mime\/|intake\/(content-digest|relaxed-body)|fast-paths\/relaxed-body)/, 'MIME walk and content digest'],
  [/^gateway:intake\//, 'intake records and queue'],
  [/^package:smtp-server\//, 'smtp-server'],
  [/^gateway:pdf\//, 'PDF checks (the move to the thread and back)'],
  [/^package:(mailparser|@zone-eu\/mailsplit|libmime)\//, 'mailparser'],
  [/^gateway:(sender-api\/|fast-paths\/http-fetch)|^package:undici\/|^node:_http_/, 'HTTP (Sender API calls; the ops server)'],
  [/^gateway:worker\//, 'worker (the rest)'],
  [/^gateway:smtp\//, 'listener (the rest)'],
  [/^gateway:/, 'gateway (elsewhere)'],
];

/** A frame's file as PARTS names it. */
export function fileOf(url: string): string {
  const inPackages = url.lastIndexOf('node_modules/');
  if (inPackages >= 0) return `package:${url.slice(inPackages + 'node_modules/'.length)}`;
  const ours = /\/(?:dist|src)\/(.*)$/.exec(url);
  if (ours?.[1] !== undefined) return `gateway:${ours[1]}`;
  return url.startsWith('node:') ? url : `node:${url}`;
}

export function profileParts(profile: CpuProfile): { readonly busyMs: number; readonly parts: ReadonlyMap<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const parts = new Map<string, number>();
  let busyMs = 0;
  profile.samples.forEach((sample, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const leaf = byId.get(sample)?.callFrame.functionName;
    if (leaf === '(idle)' || leaf === '(root)' || leaf === undefined) return;
    busyMs += ms;
    let label = leaf === '(garbage collector)' ? 'garbage collector' : leaf === '(program)' ? '(program)' : undefined;
    for (let id: number | undefined = sample; label === undefined && id !== undefined; id = parent.get(id)) {
      const file = fileOf(byId.get(id)?.callFrame.url ?? '');
      label = PARTS.find(([pattern]) => pattern.test(file))?.[1];
    }
    const part = label ?? 'Node and native, no gateway frame';
    parts.set(part, (parts.get(part) ?? 0) + ms);
  });
  return { busyMs, parts };
}

function main(args: readonly string[]): void {
  if (args.length === 0) {
    process.stderr.write('usage: tsx bench/profile-parts.ts <label>=<file.cpuprofile> ...\n');
    process.exitCode = 64;
    return;
  }
  const runs = args.map((arg) => {
    const [label, file] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, arg];
    return { label, ...profileParts(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile) };
  });
  const names = [...new Set(runs.flatMap((r) => [...r.parts.keys()]))].sort(
    (a, b) => (runs[0]?.parts.get(b) ?? 0) - (runs[0]?.parts.get(a) ?? 0),
  );
  const share = (r: (typeof runs)[number], name: string): string => `${((100 * (r.parts.get(name) ?? 0)) / r.busyMs).toFixed(1)}%`;
  const lines = [
    `| Part | ${runs.map((r) => `${r.label} (${(r.busyMs / 1000).toFixed(1)} s busy)`).join(' | ')} |`,
    `|---|${runs.map(() => '---:|').join('')}`,
    ...names.map((name) => `| ${name} | ${runs.map((r) => share(r, name)).join(' | ')} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1]?.endsWith('profile-parts.ts') === true) main(process.argv.slice(2));
