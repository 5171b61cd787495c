import { describe, expect, it } from 'vitest';
import { buildPostDoc } from './post-draft';
import { isScheduled, localInputOf, publishAtOf, splitScheduled } from './scheduled-posts';

const post = (id: string, authorId: string | null, publishAt?: string | null) => ({ id, authorId, publishAt });

describe('the feed’s scheduled posts', () => {
  it('keeps the user’s own scheduled posts out of the feed, soonest first, and everyone else’s out of both', () => {
    const posts = [
      post('a', 'me'),
      post('b', 'me', '2026-12-02T09:00:00.000Z'),
      post('c', 'other', '2026-12-01T09:00:00.000Z'),
      post('d', 'me', '2026-12-01T08:00:00.000Z'),
      post('e', 'other', null),
    ];
    const { published, scheduled } = splitScheduled(posts, 'me');
    expect(published.map((p) => p.id)).toEqual(['a', 'e']);
    expect(scheduled.map((p) => p.id)).toEqual(['d', 'b']);
  });

  it('shows a post in the feed once the pulled, published copy has taken its place (no publishAt)', () => {
    const waiting = post('x', 'me', '2026-12-01T08:00:00.000Z');
    expect(isScheduled(waiting)).toBe(true);
    const { publishAt: _, ...pulled } = waiting;
    expect(splitScheduled([pulled], 'me')).toEqual({ published: [pulled], scheduled: [] });
  });

  it('reads the Schedule field in the device’s time as ISO 8601, empty or unreadable meaning now', () => {
    const iso = publishAtOf('2026-12-01T09:30');
    expect(iso).toBe(new Date(2026, 11, 1, 9, 30).toISOString());
    expect(localInputOf(iso!)).toBe('2026-12-01T09:30');
    expect(publishAtOf('')).toBeNull();
    expect(publishAtOf('soon')).toBeNull();
  });

  it('gives the local post of a scheduled draft its publishAt, and an ordinary one none', () => {
    const draft = { content: 'Rota', category: 'company_announcement' as const, isUrgent: false, houseTags: [] };
    const later = buildPostDoc('p1', 'me', { ...draft, publishAt: '2026-12-01T09:00:00.000Z' }, []);
    expect(later.publishAt).toBe('2026-12-01T09:00:00.000Z');
    expect(splitScheduled([later], 'me').scheduled).toEqual([later]);
    expect('publishAt' in buildPostDoc('p2', 'me', { ...draft, publishAt: null }, [])).toBe(false);
  });
});
