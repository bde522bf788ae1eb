// The outcomes of an intake a sender can be told about: the notices' own vocabulary, which the
// intake record, the sender directory (`"notify": [...]`) and the ops pages use.

/** A notice answers one outcome of the intake. */
export const NOTICE_KINDS = ['rejected', 'failed', 'submitted', 'simulated'] as const;
export type NoticeKind = (typeof NOTICE_KINDS)[number];

export function isNoticeKind(value: string): value is NoticeKind {
  return (NOTICE_KINDS as readonly string[]).includes(value);
}
