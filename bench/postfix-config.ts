// The private Postfix's configuration: bench/postfix/main.cf and master.cf as committed, with
// only the paths and the port filled in. Pure apart from reading the two files; a template whose
// placeholders and values do not match exactly is refused, so nothing is left half filled.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const POSTFIX_TEMPLATE_DIR = join(import.meta.dirname, 'postfix');

/** Where the instance keeps its files, all under the bench's temporary directory. */
export interface PostfixPaths {
  readonly queueDirectory: string;
  readonly dataDirectory: string;
  readonly logFile: string;
  readonly logDirectory: string;
}

export interface PostfixTemplates {
  readonly mainCf: string;
  readonly masterCf: string;
}

export interface PostfixConfig {
  readonly mainCf: string;
  readonly masterCf: string;
}

const PLACEHOLDER = /\{\{([a-z_]+)\}\}/g;

/** `{{name}}` replaced by `values[name]`; throws naming any placeholder without a value. */
export function fillTemplate(file: string, template: string, values: Readonly<Record<string, string>>): string {
  const missing = [...template.matchAll(PLACEHOLDER)].map((m) => m[1] ?? '').filter((name) => !Object.hasOwn(values, name));
  if (missing.length > 0) throw new Error(`${file}: no value for {{${[...new Set(missing)].join('}}, {{')}}}`);
  return template.replace(PLACEHOLDER, (_, name: string) => values[name] ?? '');
}

export function renderPostfixConfig(templates: PostfixTemplates, paths: PostfixPaths, port: number): PostfixConfig {
  const main = {
    queue_directory: paths.queueDirectory,
    data_directory: paths.dataDirectory,
    log_file: paths.logFile,
    log_directory: paths.logDirectory,
  };
  const master = { port: String(port) };
  // A value no template asks for is a template that lost its placeholder.
  for (const [file, template, values] of [
    ['main.cf', templates.mainCf, main],
    ['master.cf', templates.masterCf, master],
  ] as const) {
    const used = new Set([...template.matchAll(PLACEHOLDER)].map((m) => m[1]));
    const unused = Object.keys(values).filter((name) => !used.has(name));
    if (unused.length > 0) throw new Error(`${file}: no {{${unused.join('}}, {{')}}} in the template`);
  }
  // Postfix reads a value up to the end of the line: a path with a line break or a space would
  // change the meaning of the file rather than fail.
  for (const value of [...Object.values(main), ...Object.values(master)]) {
    if (/[\s,]/.test(value)) throw new Error(`postfix path or port ${JSON.stringify(value)} holds a space, comma or line break`);
  }
  return { mainCf: fillTemplate('main.cf', templates.mainCf, main), masterCf: fillTemplate('master.cf', templates.masterCf, master) };
}

export function readPostfixTemplates(dir: string = POSTFIX_TEMPLATE_DIR): PostfixTemplates {
  return { mainCf: readFileSync(join(dir, 'main.cf'), 'utf8'), masterCf: readFileSync(join(dir, 'master.cf'), 'utf8') };
}
