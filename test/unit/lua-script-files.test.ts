// The Redis scripts are files: each `<name>-<number of keys>.lua` opens with a header naming every
// KEYS[n] and ARGV[n] its body reads, and no TypeScript file carries Lua of its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyCountOf } from '../../src/intake/lua-script.js';

const SRC = join(import.meta.dirname, '../../src');
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).map((f) => join(SRC, f));
const scripts = files.filter((f) => f.endsWith('.lua'));

/** The indexes of `name[n]` in the text (KEYS[i] with a variable index is left out). */
function indexesOf(name: 'KEYS' | 'ARGV', text: string): number[] {
  return [...text.matchAll(new RegExp(`${name}\\[(\\d+)\\]`, 'g'))].map((m) => Number(m[1]));
}

/** What the header documents: each `KEYS[n]` / `ARGV[n]` line, and `ARGV[n..]` for the rest from n. */
function documented(header: string, name: 'KEYS' | 'ARGV'): { readonly each: number[]; readonly restFrom?: number } {
  const each = [...header.matchAll(new RegExp(`^\\s*${name}\\[(\\d+)\\] \\S`, 'gm'))].map((m) => Number(m[1]));
  const rest = new RegExp(`^\\s*${name}\\[(\\d+)\\.\\.\\] \\S`, 'm').exec(header)?.[1];
  return rest === undefined ? { each } : { each, restFrom: Number(rest) };
}

describe('the Lua scripts in src/', () => {
  it('are there (the stores run on them)', () => {
    expect(scripts.map((f) => relative(SRC, f)).sort()).toEqual([
      'intake/scripts/admit-sender-7.lua',
      'intake/scripts/append-stray-draft-1.lua',
      'intake/scripts/checkpoint-1.lua',
      'intake/scripts/checkpoint-letter-2.lua',
      'intake/scripts/count-refusal-1.lua',
      'intake/scripts/create-6.lua',
      'intake/scripts/record-refusal-5.lua',
      'intake/scripts/transition-9.lua',
      'notices/scripts/move-notice-1.lua',
      'portal/scripts/claim-form-token-1.lua',
      'portal/scripts/swap-backup-codes-1.lua',
      'portal/scripts/take-totp-step-1.lua',
    ]);
  });

  it.each(scripts.map((f) => [relative(SRC, f), f]))('%s names each key and argument it reads in its header', (_name, file) => {
    const text = readFileSync(file, 'utf8');
    const header = /^--\[\[\n([\s\S]*?)\n\]\]\n/.exec(text)?.[1] ?? '';
    const body = text.slice(header.length);
    const keys = documented(header, 'KEYS');
    const args = documented(header, 'ARGV');
    const keyCount = keyCountOf(file);
    expect(keys.each, 'KEYS[1] to KEYS[n], n from the file name').toEqual(Array.from({ length: keyCount }, (_, i) => i + 1));
    expect(args.each, 'ARGV[1] to ARGV[m], in order').toEqual(Array.from({ length: args.each.length }, (_, i) => i + 1));
    expect(indexesOf('KEYS', body).filter((i) => i > keyCount)).toEqual([]);
    if (args.restFrom === undefined) expect(indexesOf('ARGV', body).filter((i) => i > args.each.length)).toEqual([]);
    else expect(args.restFrom, 'ARGV[n..] follows the last ARGV[n]').toBe(args.each.length + 1);
    expect(header).toMatch(/^\s*Output:$/m);
  });

  it('build no key name of their own: every key a script touches is one of its KEYS (a Redis Cluster routes by them)', () => {
    const building = scripts.filter((f) => /KEYS\[[^\]]+\]\s*\.\./.test(readFileSync(f, 'utf8')));
    expect(building.map((f) => relative(SRC, f))).toEqual([]);
  });

  it('are the only Lua: no TypeScript file calls redis.call itself', () => {
    const carrying = files.filter((f) => f.endsWith('.ts') && readFileSync(f, 'utf8').includes('redis.call('));
    expect(carrying.map((f) => relative(SRC, f))).toEqual([]);
  });
});
