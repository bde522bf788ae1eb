// Replaces: @zone-eu/mailsplit 5.4.19's line-by-line body scan (MessageSplitter#_transform), through
// patches/@zone-eu+mailsplit+5.4.19.patch, which adds the run-time switch this file sets
// (MessageSplitter.bodyFastPath: runs of body lines that cannot be delimiters taken in bulk).
// Proved by: test/unit/mailsplit-body-fast-path.test.ts (the same splitter with the switch off is
// the reference). The patch's other half (a native search for each line's LF) is install-time
// only; the stock-install CI leg (.ci/run) runs without it.
import { Splitter } from '@zone-eu/mailsplit';

/** On: body lines in bulk (the patch's default); off: every line through mailsplit's own path. */
export function setMailsplitBodyLines(inBulk: boolean): void {
  // Without the patch (an install with --ignore-scripts) the property is new and unread: stock.
  Reflect.set(Splitter, 'bodyFastPath', inBulk);
}
