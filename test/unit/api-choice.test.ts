import { describe, expect, it } from 'vitest';
import type { Sender } from '../../src/senders/directory.js';
import { chooseApi } from '../../src/worker/api-choice.js';

const DEFAULT = 'https://api.example';
const STAGING = 'https://staging.api.example';
const sender = { senderId: 's', senderApiUrl: STAGING } as const satisfies Partial<Sender>;
const baseUrlOf = (s: Sender | undefined): string => s?.senderApiUrl ?? DEFAULT;
const choose = (record: Parameters<typeof chooseApi>[0], marker?: { apiBaseUrl?: string }) =>
  chooseApi(record, marker, sender as unknown as Sender, baseUrlOf);

describe('the Sender API an intake goes to', () => {
  it("is the sender's senderApiUrl for a new intake, to be recorded before the first call", () => {
    expect(choose({})).toEqual({ baseUrl: STAGING, fresh: true });
  });

  it('stays the recorded one when a reload changed senderApiUrl since (no second letter elsewhere)', () => {
    expect(choose({ apiBaseUrl: 'https://old.api.example', draftRequestedAt: 1 })).toEqual({
      baseUrl: 'https://old.api.example',
      fresh: false,
    });
  });

  it("is the letter marker's when Redis lost the record's", () => {
    expect(choose({ letterId: 'L-1' }, { apiBaseUrl: 'https://old.api.example' })).toEqual({
      baseUrl: 'https://old.api.example',
      fresh: false,
    });
  });

  it('is SENDER_API_URL for a draft begun before base URLs were recorded', () => {
    expect(choose({ draftRequestedAt: 1 })).toEqual({ baseUrl: DEFAULT, fresh: false });
    expect(choose({ letterId: 'L-1' })).toEqual({ baseUrl: DEFAULT, fresh: false });
    expect(choose({}, {})).toEqual({ baseUrl: DEFAULT, fresh: false });
  });
});
