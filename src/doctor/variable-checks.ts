// The environment's own variables that this version does not know: each a `!` line naming the
// nearest known name (a setting that does nothing works against the operator who set it).
import { describeUnknown, type UnknownVariable } from '../config-unknown.js';
import { type CheckResult, warn } from './result.js';

export function judgeVariables(unknown: readonly UnknownVariable[]): CheckResult[] {
  return unknown.map((variable) => warn('Configuration', variable.name, `${describeUnknown(variable)}: rename or remove it`));
}
