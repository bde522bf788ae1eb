import { describe, expect, it } from 'vitest';
import { type FetchLook, stoppedFetching } from '../../src/worker/fetch-watch.js';

const look = (over: Partial<FetchLook>): FetchLook => ({ at: 0, ready: 3, started: 10, running: 1, ...over });
const CONCURRENCY = 4;
const INTERVAL = 30_000;

describe('stoppedFetching', () => {
  it('jobs ready at both looks, room at both, none started between: stopped', () => {
    expect(stoppedFetching(look({ at: 0 }), look({ at: 30_000 }), CONCURRENCY, INTERVAL)).toBe(true);
  });

  it('a job started between the looks: fetching', () => {
    expect(stoppedFetching(look({ at: 0 }), look({ at: 30_000, started: 11 }), CONCURRENCY, INTERVAL)).toBe(false);
  });

  it('the worker full at either look: not judged (it has no room to fetch)', () => {
    expect(stoppedFetching(look({ at: 0, running: 4 }), look({ at: 30_000 }), CONCURRENCY, INTERVAL)).toBe(false);
    expect(stoppedFetching(look({ at: 0 }), look({ at: 30_000, running: 4 }), CONCURRENCY, INTERVAL)).toBe(false);
  });

  it('no job ready at either look: an idle worker is not stopped', () => {
    expect(stoppedFetching(look({ at: 0, ready: 0 }), look({ at: 30_000 }), CONCURRENCY, INTERVAL)).toBe(false);
    expect(stoppedFetching(look({ at: 0 }), look({ at: 30_000, ready: 0 }), CONCURRENCY, INTERVAL)).toBe(false);
  });

  it('looks closer than the interval (a late round after an early one): not judged', () => {
    expect(stoppedFetching(look({ at: 0 }), look({ at: 29_999 }), CONCURRENCY, INTERVAL)).toBe(false);
  });
});
