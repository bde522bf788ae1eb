// The worker's half of a self-test (smtp/self-test.ts): the message's PDFs get the deep checks a
// letter's get, every PDF judged, and the report is mailed to the authenticated From through the
// notice relay. Nothing else happens: no letter, no intake, no notice ledger. The message's blob
// is deleted once the report is done (no record points at it: the orphan sweep would anyway).
import type { Job } from 'bullmq';
import type { SelfTestJobData } from '../intake/self-test-queue.js';
import type { PdfVerdict, SelfTestReports } from '../intake/self-test-reports.js';
import type { Logger } from '../log.js';
import type { NoticeRelay } from '../notices/relay.js';
import { selfTestMail } from '../notices/self-test-mail.js';
import type { PdfDocument } from '../pdf/pdf-document.js';
import type { RawStore } from '../raw-store/raw-store.js';
import type { SenderDirectory } from '../senders/directory.js';
import { parseMessage } from './parse-message.js';
import { selectPdfs } from './pdf-rules.js';

export interface SelfTestJobDeps {
  readonly reports: SelfTestReports;
  readonly rawStore: RawStore;
  readonly directory: SenderDirectory;
  readonly pdfVerdict: (pdf: PdfDocument, allowForms: boolean) => Promise<string>;
  /** The notice relay (NOTICE_SMTP_URL); undefined: reports are kept, not mailed. */
  readonly relay: NoticeRelay | undefined;
  /** NOTICE_FROM. */
  readonly from: string;
  readonly clock: () => number;
  readonly logger: Logger;
}

export function createSelfTestProcessor(deps: SelfTestJobDeps) {
  return async (job: Job<SelfTestJobData>): Promise<void> => {
    const { id, blobKey } = job.data;
    const report = await deps.reports.get(id);
    if (report === undefined || report.state !== 'checking') {
      await deps.rawStore.delete(blobKey);
      return;
    }
    const raw = await deps.rawStore.readBuffer(blobKey);
    const pdfs: PdfVerdict[] = [];
    if (raw === undefined) pdfs.push({ fileName: '(the message)', verdict: 'not checked: the stored message was gone' });
    else {
      const { pdfs: documents } = selectPdfs((await parseMessage(raw)).attachments);
      const allowForms = deps.directory.byAddress(report.from)?.allowPdfForms ?? false;
      for (const pdf of documents) pdfs.push({ fileName: pdf.fileName, verdict: await deps.pdfVerdict(pdf, allowForms) });
    }
    const checked = { ...report, pdfs };
    let mailed: string;
    if (deps.relay === undefined) {
      mailed = 'not mailed: no relay configured (NOTICE_SMTP_URL); shown on the intake pages';
    } else {
      try {
        await deps.relay.send(
          report.from,
          selfTestMail({ ...checked, state: 'reported', mailed: `mailed to ${report.from}` }, deps.from, deps.clock()),
          async () => {},
        );
        mailed = `mailed to ${report.from}`;
      } catch (err) {
        deps.logger.warn({ err, event: 'worker.self_test_mail_failed', selfTestId: id }, 'self-test report not mailed');
        mailed = 'not mailed: the relay refused it or did not answer';
      }
    }
    await deps.reports.save({ ...checked, state: 'reported', mailed });
    await deps.rawStore.delete(blobKey);
    deps.logger.info({ event: 'worker.self_test_reported', selfTestId: id, mailed }, 'self-test reported');
  };
}
