// The intake list's query string: states, search term, page and limit, with their bounds.
import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../src/ops/intake-query.js';

describe('the intake list query', () => {
  it('defaults to every state, page 1 of 50, no search', () => {
    expect(parseListQuery({})).toEqual({
      ok: true,
      states: ['received', 'queued', 'processing', 'submitted', 'rejected', 'failed', 'simulated'],
      explicitStates: false,
      limit: 50,
      page: 1,
      q: undefined,
    });
  });

  it('takes a trimmed search term, states and a page', () => {
    expect(parseListQuery({ q: '  <a@b.example> ', state: ['failed', 'queued,failed'], page: '3', limit: '20' })).toEqual({
      ok: true,
      states: ['failed', 'queued'],
      explicitStates: true,
      limit: 20,
      page: 3,
      q: '<a@b.example>',
    });
  });

  it.each([
    [{ state: 'lost' }, 'unknown state "lost"'],
    [{ limit: '0' }, 'limit must be an integer from 1 to 1000'],
    [{ page: '0' }, 'page must be an integer from 1 to 200 at this limit'],
    [{ page: '1.5' }, 'page must be an integer from 1 to 200 at this limit'],
    [{ page: '11', limit: '1000' }, 'page must be an integer from 1 to 10 at this limit'],
  ])('refuses %o', (query, error) => {
    expect(parseListQuery(query)).toEqual({ ok: false, error });
  });
});
