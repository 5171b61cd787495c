import { describe, expect, it } from 'vitest';
import { buildPostDoc } from './post-draft';

describe('a new post on the device', () => {
  it('carries the draft’s mentions, or none, so it is sent with them once', () => {
    const draft = { content: ' Thanks @Ann Lee ', category: 'wages_hr' as const, isUrgent: false, houseTags: [] };
    const doc = buildPostDoc('p1', 'me', { ...draft, mentions: ['ann', 'house:Giles House'] }, [], 5);
    expect(doc).toMatchObject({
      content: 'Thanks @Ann Lee',
      mentions: ['ann', 'house:Giles House'],
      localPending: true,
    });
    expect(buildPostDoc('p2', 'me', draft, [], 5).mentions).toEqual([]);
  });
});
