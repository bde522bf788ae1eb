// The messages between the bench and its forked processes (generator and sink), over IPC.
import type { LoadResult, LoadSpec } from './load.js';
import type { SizeName } from './messages.js';

export type GeneratorRequest =
  | { readonly kind: 'prepare'; readonly id: number; readonly sizes: readonly SizeName[] }
  | { readonly kind: 'load'; readonly id: number; readonly spec: LoadSpec };

export type GeneratorAnswer =
  | { readonly kind: 'prepared'; readonly id: number; readonly wireBytes: Readonly<Record<string, number>> }
  | { readonly kind: 'result'; readonly id: number; readonly result: LoadResult }
  | { readonly kind: 'error'; readonly id: number; readonly message: string };

export interface SinkListening {
  readonly kind: 'listening';
  readonly port: number;
}

/** IPC messages come from our own child processes: the discriminant is checked, not every field. */
export function isGeneratorAnswer(value: unknown): value is GeneratorAnswer {
  return hasKind(value, ['prepared', 'result', 'error']) && typeof value.id === 'number';
}

export function isSinkListening(value: unknown): value is SinkListening {
  return hasKind(value, ['listening']) && typeof value.port === 'number';
}

function hasKind(value: unknown, kinds: readonly string[]): value is { kind: string; [field: string]: unknown } {
  return typeof value === 'object' && value !== null && 'kind' in value && typeof value.kind === 'string' && kinds.includes(value.kind);
}
