import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACME, call, field, letterBody, login, pdfBase64, startTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

const upload = (label: string) => ({ fileName: `${label}.pdf`, mimeType: 'application/pdf', base64Data: pdfBase64(label) });

describe('sandbox parts rules on update', () => {
  let sandbox: TestSandbox;
  let session: string;
  let letterId: unknown;
  let first: { id: unknown; sha256: unknown };
  let second: { id: unknown; sha256: unknown };

  beforeEach(async () => {
    sandbox = await startTestSandbox();
    session = await login(sandbox.url, ACME);
    letterId = field((await save({ parts: [upload('first'), upload('second')] })).json, 'id');
    const parts = await partsOf();
    const meta = (i: number) => ({ id: field(parts[i], 'id'), sha256: field(parts[i], 'sha256') });
    first = meta(0);
    second = meta(1);
  });
  afterEach(async () => {
    await sandbox.close();
  });

  function save(overrides: Record<string, unknown>) {
    return call(sandbox.url, 'PUT', '/api/v1/letters/draft', { session, body: letterBody(overrides) });
  }

  async function partsOf(): Promise<unknown[]> {
    const parts = field((await call(sandbox.url, 'GET', `/api/v1/letters/${String(letterId)}`, { session })).json, 'parts');
    return Array.isArray(parts) ? parts : [];
  }

  it('keeps the document a part names by id alone', async () => {
    await save({ id: letterId, parts: [{ id: first.id }, { id: second.id }] });
    expect((await partsOf()).map((p) => ({ id: field(p, 'id'), sha256: field(p, 'sha256') }))).toEqual([first, second]);
  });

  it('uploads a new document for a part with fileName, mimeType and base64Data', async () => {
    await save({ id: letterId, parts: [{ id: first.id }, { id: second.id }, upload('third')] });
    const parts = await partsOf();
    expect(parts.map((p) => field(p, 'fileName'))).toEqual(['first.pdf', 'second.pdf', 'third.pdf']);
    expect(new Set(parts.map((p) => field(p, 'id'))).size).toBe(3);
  });

  it('drops the documents the update does not reference', async () => {
    await save({ id: letterId, parts: [{ id: second.id }] });
    expect((await partsOf()).map((p) => field(p, 'id'))).toEqual([second.id]);
  });

  it('refuses to keep a document the letter does not have', async () => {
    const answer = await save({ id: letterId, parts: [{ id: '3f0c2b1a-0000-4000-8000-000000000000' }] });
    expect(answer.status).toBe(400);
    expect(field(answer.json, 'message')).toMatch(/is not a document of this letter/);
  });

  it('refuses a part that gives both an id and new content', async () => {
    const answer = await save({ id: letterId, parts: [{ id: first.id, ...upload('other') }] });
    expect(answer.status).toBe(400);
    expect((await partsOf()).map((p) => field(p, 'id'))).toEqual([first.id, second.id]);
  });

  it('refuses to keep the same document twice', async () => {
    const answer = await save({ id: letterId, parts: [{ id: first.id }, { id: first.id }] });
    expect(field(answer.json, 'message')).toMatch(/listed twice/);
  });
});
