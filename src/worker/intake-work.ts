// The intake's work once claimed: load raw → parse → decide → check the PDFs → submit exactly
// once → record the outcome. Returns the run's Outcome; whatever it throws, error-outcome.ts
// turns into one.
import { ruleSentence, WORKER_FAILURES } from '../errors.js';
import { loadRawMessage } from '../raw-store/raw-message.js';
import { isStorageError } from '../redis/redis-errors.js';
import { chooseApi, recordApiChoice } from './api-choice.js';
import { decide } from './decide.js';
import { describeFailure } from './failure.js';
import { markedCheckpoint } from './letter-marker.js';
import { scanStep } from './malware-step.js';
import type { Outcome } from './outcome.js';
import { FreshOwnership, ownedCheckpoint, ownedLetterApi } from './ownership.js';
import { isParserLimit, type ParsedMessage, parseMessage } from './parse-message.js';
import { failed, rejected, simulated, storageLater, submitted } from './record-end.js';
import { replicatedCheckpoint } from './redis-outcome.js';
import { errorText, type Run } from './run.js';
import { submitExactlyOnce } from './submit-letter.js';

export async function workOnIntake(run: Run): Promise<Outcome> {
  const { deps, record } = run;
  // A raw store that does not answer throws StorageUnavailable: a retry, not a missing message.
  const message = await loadRawMessage(deps.rawStore, record);
  if (!message.found) return failed(run, { code: 'RawMessageMissing', message: `${WORKER_FAILURES.RawMessageMissing} ${message.reason}` });
  const raw = message.bytes;

  const parseStarted = performance.now();
  let parsed: ParsedMessage;
  try {
    parsed = await parseMessage(raw);
  } catch (err) {
    // The parser's own limits are a rule of the message; anything else is a defect of ours.
    if (isParserLimit(err)) return rejected(run, 'UnparseableMessage', ruleSentence('UnparseableMessage', deps));
    run.log.error({ err, event: 'intake.parser_error' }, 'the message parser failed');
    return failed(run, { code: 'ParserError', message: `${WORKER_FAILURES.ParserError} ${errorText(err)}` });
  } finally {
    deps.observer.stageDuration('parse', (performance.now() - parseStarted) / 1000);
  }

  const scanned = await scanStep(run, raw, parsed);
  if (scanned !== undefined) return scanned;

  // The sender is the From address authentication judged (record.from), not mailparser's
  // reading of the header: the two parsers disagree on crafted Froms (a group plus an RFC 2047
  // word that decodes to "<letters@acme.example>"), and only the authenticated one is proven.
  const authenticated = { ...parsed, fromAddresses: record.from === '' ? [] : [record.from] };
  const decision = decide(authenticated, { directory: deps.directory, maxPdfBytes: deps.maxPdfBytes, apiLimits: deps.apiLimits });
  if (decision.kind === 'rejected') return rejected(run, decision.reasonCode, decision.reason);

  const pdfCheck = await deps.checkPdfs(decision.pdfs, decision.sender);
  const pdfs = decision.pdfs.map((p, i) => ({
    fileName: p.fileName,
    bytes: p.content.length,
    sha256: p.sha256,
    ...(pdfCheck.ok ? pdfCheck.details[i] : {}),
  }));
  run.facts = { senderId: decision.sender.senderId, pdfs, ignoredAttachments: [...decision.ignoredAttachments] };
  if (!pdfCheck.ok) return rejected(run, pdfCheck.reasonCode, `${pdfCheck.reasonCode}: ${pdfCheck.reason}`);
  const marker = deps.markers === undefined ? undefined : { marker: await deps.markers.letter(record.intakeId) };
  // A dry run (the sender's dryRun) ends here, every check passed: nothing goes to the Sender API —
  // unless an earlier run began a letter (dryRun turned on since): that letter is finished, not hidden.
  const begun = record.letterId !== undefined || record.draftRequestedAt !== undefined || marker?.marker !== undefined;
  if (decision.sender.dryRun === true && !begun) return simulated(run, decision.letter);
  const apiStarted = performance.now();
  const api = chooseApi(record, marker?.marker, decision.sender, deps.apiBaseUrlOf);
  await recordApiChoice(run.owner, api);
  run.apiBaseUrl = api.baseUrl;
  const fresh = new FreshOwnership(); // a checkpoint write just before an API call is its ownership check
  const owned = ownedCheckpoint(run.owner, record, deps.clock, run.log, fresh, replicatedCheckpoint(deps.replicas, deps.clock));
  const checkpoint =
    deps.markers === undefined
      ? owned
      : await markedCheckpoint(owned, deps.markers, record.intakeId, deps.clock, { baseUrl: api.baseUrl, read: marker });
  const letter = await submitExactlyOnce(
    ownedLetterApi(deps.lettersFor(decision.sender, api.baseUrl), run.owner, fresh),
    checkpoint,
    { letter: decision.letter, pdfSha256s: pdfs.map((p) => p.sha256) },
    {
      clock: deps.clock,
      signal: run.abort,
      isInvalidData: (err) => describeFailure(err).code === 'InvalidData',
      statuses: deps.letterStatuses(api.baseUrl),
    },
  );
  deps.observer.stageDuration('api', (performance.now() - apiStarted) / 1000);
  // The letter exists now: whatever recording it meets, the intake must not end failed. A
  // defect comes back like storage trouble, shown with its stack, and alerts after a few returns.
  return submitted(run, letter.id, letter.status).catch((err: unknown): Outcome => {
    if (run.abort.aborted) return { kind: 'shutting-down', reason: `intake ${record.intakeId}: the worker is shutting down` };
    const what = `letter ${letter.id} is submitted, but recording it failed`;
    if (!isStorageError(err)) run.log.error({ err, event: 'intake.worker_error', letterId: letter.id }, `${what} with an unexpected error`);
    return storageLater(run.job, run.log, what, err);
  });
}
