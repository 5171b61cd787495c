import { describe, expect, it } from 'vitest';
import { forgetPostDrafts, readPostDraft, writePostDraft, type SavedPostDraft } from './post-draft-store';

function memoryStorage() {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    removeItem: (key: string) => void data.delete(key),
    key: (i: number) => [...data.keys()][i] ?? null,
    get length() {
      return data.size;
    },
  };
}

const draft: SavedPostDraft = {
  content: 'Rota changes',
  category: 'wages_hr',
  isUrgent: false,
  houseTags: [],
  audienceHouses: [],
};

describe('the post draft kept on the device', () => {
  it('is read back for the same user only, and removed when posted', () => {
    const storage = memoryStorage();
    writePostDraft('db-ann', draft, storage);
    expect(readPostDraft('db-ann', storage)).toEqual(draft);
    expect(readPostDraft('db-bob', storage)).toBeNull();
    writePostDraft('db-ann', null, storage);
    expect(readPostDraft('db-ann', storage)).toBeNull();
  });

  it('keeps who the draft mentions, and reads a draft from before mentions as mentioning nobody', () => {
    const storage = memoryStorage();
    const mentioning = { ...draft, content: '@Ann Lee can you cover?', mentions: ['user-ann', 'house:Giles House'] };
    writePostDraft('db-ann', mentioning, storage);
    expect(readPostDraft('db-ann', storage)).toEqual(mentioning);
    storage.setItem('sp_post_draft|db-ann', JSON.stringify({ ...draft, mentions: 'everyone' }));
    expect(readPostDraft('db-ann', storage)?.mentions).toBeUndefined();
  });

  it('reads anything unreadable as no draft', () => {
    const storage = memoryStorage();
    storage.setItem('sp_post_draft|db-ann', '{"content": 5}');
    expect(readPostDraft('db-ann', storage)).toBeNull();
    storage.setItem('sp_post_draft|db-ann', 'not json');
    expect(readPostDraft('db-ann', storage)).toBeNull();
  });

  it("goes at a session's end, and another user's sign-in keeps only their own", () => {
    const storage = memoryStorage();
    storage.setItem('other-key', 'kept');
    writePostDraft('db-ann', draft, storage);
    writePostDraft('db-bob', draft, storage);
    forgetPostDrafts(['db-bob'], storage);
    expect([...storage.data.keys()]).toEqual(['other-key', 'sp_post_draft|db-bob']);
    forgetPostDrafts([], storage);
    expect([...storage.data.keys()]).toEqual(['other-key']);
  });
});
