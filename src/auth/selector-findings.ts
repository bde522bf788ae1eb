// For a sender that lists its DKIM selectors: which signature's selector is listed and which is
// not, for the self-test's reply and report (a signature with an unlisted selector never counts,
// verdict.ts). Pure.
import type { DkimSignatureSummary } from './summary.js';

export interface SelectorFinding {
  readonly domain: string;
  readonly selector: string;
  readonly result: string;
  readonly listed: boolean;
}

export interface SelectorFindings {
  /** The selectors the sender lists (lower-cased). */
  readonly listed: readonly string[];
  readonly signatures: readonly SelectorFinding[];
}

export function selectorFindings(signatures: readonly DkimSignatureSummary[], listed: readonly string[]): SelectorFindings {
  return {
    listed,
    signatures: signatures.map((s) => ({
      domain: s.signingDomain,
      selector: s.selector,
      result: s.result,
      listed: listed.includes(s.selector.toLowerCase()),
    })),
  };
}
