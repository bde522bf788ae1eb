// The message's own rules in the SMTP session (docs/design.md §2.4): the streaming walk's facts and the
// authenticated From in, the rule the message breaks (if any) out. Only what the walk read with
// certainty is refused: a walk that fails is a fault of ours, answered 451 (try later).
import { withTimeout } from '../bounded.js';
import { WALK_SETTLE_MS } from '../config.js';
import { IntakeError, type MessageRule, ruleSentence } from '../errors.js';
import type { WalkResult } from '../mime/mime-walk.js';
import { judgeMessage, type RuleContext } from '../policy/message-rules.js';

/** Pure: the rule the message breaks, or undefined when it may be accepted. */
export function brokenRule(walk: WalkResult, from: string, rules: RuleContext): MessageRule | undefined {
  if (walk.kind === 'unparseable') return 'UnparseableMessage';
  const verdict = judgeMessage({ from, subject: walk.subject, parts: walk.parts }, rules);
  return verdict.ok ? undefined : verdict.reasonCode;
}

/** The walk's result, or IntakeError Unexpected (451 4.3.0) when it failed or hung. */
export async function settledWalk(result: Promise<WalkResult>, settleMs = WALK_SETTLE_MS): Promise<WalkResult> {
  try {
    return await withTimeout(result, settleMs, 'the MIME walk');
  } catch (err) {
    throw new IntakeError('Unexpected', 'local error, try again later', { cause: err });
  }
}

/** The refusal for a broken rule: its reply code, and a text naming the rule and what to do. */
export function refusalFor(rule: MessageRule, rules: RuleContext): IntakeError {
  return new IntakeError(rule, ruleSentence(rule, rules));
}
