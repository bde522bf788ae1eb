import { describe, expect, it } from 'vitest';
import { ACME, call, field, GLOBEX, letterBody, login, sandboxEachTest, type TestSandbox } from '../helpers/sandbox.js';

describe('sandbox operator actions', () => {
  let sandbox: TestSandbox;
  let session: string;
  sandboxEachTest((started, loggedIn) => {
    sandbox = started;
    session = loggedIn;
  });

  const submitted = async (): Promise<string> =>
    String(field((await call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body: letterBody() })).json, 'id'));
  const drafted = async (): Promise<string> =>
    String(field((await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody() })).json, 'id'));
  const act = (id: string, action: string) => call(sandbox.url, 'POST', `/sandbox/letters/${id}/${action}`);
  const statusSeenBySender = async (id: string) =>
    field((await call(sandbox.url, 'GET', `/api/v1/letters/${id}`, { session })).json, 'status');

  it('approves a letter pending approval, without a session', async () => {
    const id = await submitted();
    const answer = await act(id, 'approve');
    expect({ status: answer.status, letter: field(answer.json, 'status') }).toEqual({ status: 200, letter: 'Approved' });
  });

  it('rejects a letter pending approval', async () => {
    const id = await submitted();
    await act(id, 'reject');
    expect(await statusSeenBySender(id)).toBe('Rejected');
  });

  it('moves a letter along PendingApproval → Approved → Sending → Sent', async () => {
    const id = await submitted();
    const seen = [await statusSeenBySender(id)];
    for (const action of ['approve', 'start-sending', 'mark-sent']) {
      await act(id, action);
      seen.push(await statusSeenBySender(id));
    }
    expect(seen).toEqual(['PendingApproval', 'Approved', 'Sending', 'Sent']);
  });

  it.each([
    ['approve', 'a draft', [] as string[]],
    ['reject', 'a draft', []],
    ['start-sending', 'a letter pending approval', ['submit']],
    ['mark-sent', 'an approved letter', ['submit', 'approve']],
    ['reject', 'an approved letter', ['submit', 'approve']],
    ['approve', 'a sent letter', ['submit', 'approve', 'start-sending', 'mark-sent']],
  ])('refuses to %s %s with 400', async (action, _what, before) => {
    const id = before.includes('submit') ? await submitted() : await drafted();
    for (const step of before.filter((s) => s !== 'submit')) await act(id, step);
    const answer = await act(id, action);
    expect({ status: answer.status, errorCode: field(answer.json, 'errorCode') }).toEqual({ status: 400, errorCode: 'InvalidData' });
  });

  it('answers 404 for an unknown letter', async () => {
    expect((await act('9c7d0000-0000-4000-8000-000000000000', 'approve')).status).toBe(404);
  });

  it('answers 404 for an unknown action', async () => {
    expect((await act(await submitted(), 'teleport')).status).toBe(404);
  });

  it('lists the letters of every sender with senderId and document metadata, never the content', async () => {
    await submitted();
    const globex = await login(sandbox.url, GLOBEX);
    await call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session: globex, body: letterBody({ title: 'Globex draft' }) });
    const answer = await call(sandbox.url, 'GET', '/sandbox/letters');
    const items = field(answer.json, 'items');
    const list = Array.isArray(items) ? items : [];
    expect(list.map((l) => [field(l, 'senderId'), field(l, 'title')])).toEqual([
      [ACME.senderId, 'Your November invoice'],
      [GLOBEX.senderId, 'Globex draft'],
    ]);
    expect(field(list[0], 'parts')).toEqual([
      {
        id: expect.any(String),
        fileName: 'invoice.pdf',
        mimeType: 'application/pdf',
        sizeBytes: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
  });

  it('offers the same moves on the store for in-process tests', async () => {
    const id = await submitted();
    sandbox.store.approve(id);
    sandbox.store.startSending(id);
    sandbox.store.markSent(id);
    expect(await statusSeenBySender(id)).toBe('Sent');
  });
});
