// POST /api/v1/letters, whose request and response the contract does not show: the sandbox
// reads it as "create a new letter", a Draft, with the body and answer of PUT /letters/draft.
import { describe, expect, it } from 'vitest';
import { ACME, type ApiAnswer, call, field, letterBody, sandboxEachTest, type TestSandbox } from '../helpers/sandbox.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('sandbox POST /api/v1/letters', () => {
  let sandbox: TestSandbox;
  let session: string;
  sandboxEachTest((started, loggedIn) => {
    sandbox = started;
    session = loggedIn;
  });

  const create = (body: unknown): Promise<ApiAnswer> => call(sandbox.url, 'POST', '/api/v1/letters', { session, body });
  const outcome = (answer: ApiAnswer) => ({ status: answer.status, errorCode: field(answer.json, 'errorCode') });

  it('creates a draft and answers {id, status, title, sender}', async () => {
    const answer = await create(letterBody());
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      id: expect.stringMatching(UUID),
      status: 'Draft',
      title: 'Your November invoice',
      sender: { companyNameEn: ACME.companyNameEn },
    });
  });

  it('creates a letter the other letter calls know: it can be read and submitted', async () => {
    const id = field((await create(letterBody())).json, 'id');
    const read = await call(sandbox.url, 'GET', `/api/v1/letters/${String(id)}`, { session });
    expect(field(read.json, 'status')).toBe('Draft');
    const submitted = await call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body: letterBody({ id, parts: [] }) });
    expect(outcome(submitted)).toEqual({ status: 400, errorCode: 'InvalidData' }); // a submit needs a document
    const withDocument = await call(sandbox.url, 'POST', '/api/v1/letters/submit', { session, body: letterBody({ id }) });
    expect(field(withDocument.json, 'status')).toBe('PendingApproval');
  });

  it('creates a draft without documents', async () => {
    expect(field((await create(letterBody({ parts: [] }))).json, 'status')).toBe('Draft');
  });

  it('refuses an id: updating a draft is PUT /letters/draft', async () => {
    const id = field((await create(letterBody())).json, 'id');
    const answer = await create(letterBody({ id }));
    expect(outcome(answer)).toEqual({ status: 400, errorCode: 'InvalidData' });
    expect(field(answer.json, 'message')).toMatch(/PUT \/api\/v1\/letters\/draft/);
  });

  it('refuses a letter that fails validation', async () => {
    expect(outcome(await create(letterBody({ title: ' ' })))).toEqual({ status: 400, errorCode: 'InvalidData' });
  });

  it('answers without a session 401 InvalidSession', async () => {
    expect(outcome(await call(sandbox.url, 'POST', '/api/v1/letters', { body: letterBody() }))).toEqual({
      status: 401,
      errorCode: 'InvalidSession',
    });
  });
});
