// Not a replacement: the one switch (FAST_PATHS, config.ts) the boundary's composition
// (index.ts) reads. Process-wide, as V8's flags and mailsplit's own switch are: the composition
// roots set it from the config before anything of the listener or the worker runs.

let on = true;

/** FAST_PATHS=on (the default) or off, as the composition root set it. */
export function fastPathsOn(): boolean {
  return on;
}

export function setFastPathsOn(value: boolean): void {
  on = value;
}
