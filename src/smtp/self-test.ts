// A message to the self-test address, once its authentication is decided (receive-message.ts):
// never a letter. Each check's finding goes into a report (intake/self-test-reports.ts). A
// failure is answered 550 naming the checks, and nothing is mailed (the From may be forged); a
// pass is answered 250 naming them, and the message goes to the worker for the deep PDF checks
// and the report mail. Limited per client network, and per From domain when the From is
// authenticated (a forged one spends nothing of the domain's); no raw-store marker.
import { randomBytes } from 'node:crypto';
import { IntakeError, ruleSentence } from '../errors.js';
import type { Accepted } from '../intake/accept.js';
import type { StoredBody } from '../intake/raw-spool.js';
import { fromDomainOf } from '../intake/refusal-counts.js';
import type { SelfTestJobData } from '../intake/self-test-queue.js';
import type { SelfTestReport, SelfTestReports } from '../intake/self-test-reports.js';
import type { WalkResult } from '../mime/mime-walk.js';
import type { RuleContext } from '../policy/message-rules.js';
import type { AuthDecision, Envelope } from './receive-message.js';
import { MultiLineRefusal } from './reply.js';
import { failLines, passReply } from './self-test-reply.js';
import { brokenRule } from './session-rules.js';

export interface SelfTestDeps {
  readonly address: string;
  readonly reports: SelfTestReports;
  readonly enqueue: (job: SelfTestJobData) => Promise<void>;
  readonly rules: RuleContext;
}

export interface SelfTestInput {
  readonly at: number;
  readonly auth: AuthDecision;
  readonly fields: { readonly claimedFrom: string; readonly messageId: string; readonly subject: string };
  readonly envelope: Envelope;
  readonly walk: () => Promise<WalkResult>;
  readonly body: () => Promise<StoredBody>;
}

export function isSelfTest(envelope: Envelope, deps: SelfTestDeps | undefined): deps is SelfTestDeps {
  return deps !== undefined && envelope.rcptTo.includes(deps.address);
}

export async function receiveSelfTest(deps: SelfTestDeps, input: SelfTestInput): Promise<Accepted> {
  const { auth, fields, envelope } = input;
  const from = auth.outcome === 'pass' ? auth.from : fields.claimedFrom;
  const admitted = await deps.reports.admit(envelope.clientIp, auth.outcome === 'pass' ? fromDomainOf(auth.from) : undefined, input.at);
  if (!admitted.ok) {
    const whose = admitted.limit === 'network' ? 'your network' : 'this From domain';
    throw new IntakeError('SelfTestRateLimited', `self-test: too many self-tests from ${whose} this hour, try again later`);
  }
  const id = `st${randomBytes(12).toString('hex')}`;
  const base: Omit<SelfTestReport, 'outcome' | 'state' | 'reply'> = {
    id,
    at: input.at,
    clientIp: envelope.clientIp,
    helo: envelope.helo,
    envelopeFrom: envelope.mailFrom,
    from,
    messageId: fields.messageId,
    subject: fields.subject,
    checks: { ...auth.checks },
    ...(auth.dkimSelectors === undefined
      ? {}
      : { dkimSelectors: { listed: [...auth.dkimSelectors.listed], signatures: [...auth.dkimSelectors.signatures] } }),
  };
  if (auth.outcome !== 'pass') {
    const refusal = new MultiLineRefusal('SelfTestFailed', failLines(auth.checks));
    await deps.reports.save({
      ...base,
      outcome: 'fail',
      state: 'refused',
      reply: `550 ${refusal.lines.join(' / ')}`,
      mailed: 'not mailed: a failed self-test is answered in the session only',
    });
    throw refusal;
  }
  // The rules as for a registered sender's letter: registration is reported on its own line.
  const broken = brokenRule(await input.walk(), auth.from, { ...deps.rules, isRegistered: () => true });
  const reply = passReply(id, auth.checks, auth.dkimSelectors);
  const stored = await input.body();
  await deps.reports.save({
    ...base,
    outcome: 'pass',
    state: 'checking',
    reply: `250 ${reply}`,
    registered: deps.rules.isRegistered(auth.from),
    rules: broken === undefined ? 'pass' : `${broken}: ${ruleSentence(broken, deps.rules)}`,
  });
  await deps.enqueue({ id, blobKey: stored.blobKey });
  return { intakeId: id, duplicate: false, reply };
}
