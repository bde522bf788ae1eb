// The self-test reports one sender may see: those whose From is one of its registered addresses
// (authenticated on a pass, only claimed on a failure, as the admin pages mark it). Another
// sender's report is as absent as one that never existed.
import type { SelfTestReport } from '../intake/self-test-reports.js';
import type { Sender } from '../senders/directory.js';

/** The reports kept (a week, at most a thousand) are all read, then the sender's are kept. */
const READ_AT_MOST = 1000;
export const LISTED_SELF_TESTS = 100;

export interface ReportSource {
  list(limit: number): Promise<SelfTestReport[]>;
  get(id: string): Promise<SelfTestReport | undefined>;
}

export function isSendersSelfTest(report: SelfTestReport, sender: Sender): boolean {
  return report.from !== '' && sender.addresses.includes(report.from.toLowerCase());
}

export class SenderSelfTests {
  constructor(private readonly reports: ReportSource) {}

  /** The sender's self-tests, newest first. */
  async list(sender: Sender): Promise<SelfTestReport[]> {
    const all = await this.reports.list(READ_AT_MOST);
    return all.filter((r) => isSendersSelfTest(r, sender)).slice(0, LISTED_SELF_TESTS);
  }

  async get(sender: Sender, id: string): Promise<SelfTestReport | undefined> {
    if (!/^st[0-9a-f]{24}$/.test(id)) return undefined;
    const report = await this.reports.get(id);
    return report !== undefined && isSendersSelfTest(report, sender) ? report : undefined;
  }
}
