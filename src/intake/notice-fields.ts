// The notices an intake sent (or did not send) to its sender, as they live in the intake record:
// one entry per kind, stored as two hash fields, `notice.<kind>.state` (a scalar the Lua
// checkpoints compare) and `notice.<kind>` (the entry as JSON, for people).
//
//   queued → sending → committed → sent
//      │        │          └──────→ unconfirmed   (the worker stopped after handing it over)
//      │        └─→ failed                          (the relay refused it, or retries ran out)
//      └─→ suppressed | unsent                      (not due, with why | no relay configured)
import { z } from 'zod';
import { NOTICE_KINDS, type NoticeKind } from '../words/notice-kind.js';

export const NOTICE_STATES = ['queued', 'sending', 'committed', 'sent', 'unconfirmed', 'failed', 'suppressed', 'unsent'] as const;
export type NoticeState = (typeof NOTICE_STATES)[number];

/** States after which nothing more happens to the notice. */
export const FINAL_NOTICE_STATES: readonly NoticeState[] = ['sent', 'unconfirmed', 'failed', 'suppressed', 'unsent'];

export function isNoticeState(value: string): value is NoticeState {
  return (NOTICE_STATES as readonly string[]).includes(value);
}

const entrySchema = z.object({
  state: z.enum(NOTICE_STATES),
  /** Milliseconds since the epoch when the notice entered `state`. */
  at: z.number(),
  /** Why it was suppressed, not sent, failed or is unconfirmed. */
  reason: z.string().optional(),
  /** The notice's own Message-ID: the same on every attempt, so a resend is recognisable. */
  messageId: z.string().optional(),
  to: z.string().optional(),
  subject: z.string().optional(),
  /** The human-readable part, kept so the intake page shows what was (or would have been) sent. */
  text: z.string().optional(),
});

export type NoticeEntry = z.infer<typeof entrySchema>;
export type Notices = Partial<Record<NoticeKind, NoticeEntry>>;

export const noticeStateField = (kind: NoticeKind): string => `notice.${kind}.state`;
export const noticeEntryField = (kind: NoticeKind): string => `notice.${kind}`;

/** The notice entries found in a record's hash; a malformed entry is left out. */
export function noticesFromHash(hash: Record<string, string>): Notices {
  const notices: Notices = {};
  for (const kind of NOTICE_KINDS) {
    const text = hash[noticeEntryField(kind)];
    if (text === undefined) continue;
    try {
      const parsed = entrySchema.safeParse(JSON.parse(text));
      if (parsed.success) notices[kind] = parsed.data;
    } catch {
      // not JSON: left out
    }
  }
  return notices;
}
