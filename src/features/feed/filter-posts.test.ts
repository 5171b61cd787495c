import { describe, expect, it } from 'vitest';
import { categoryLabel } from '../../../schema/posts';
import { dateWindow, filterPosts, NO_FILTERS, type FeedFilters, type FilterablePost } from './filter-posts';

interface TestPost extends FilterablePost {
  id: string;
}

// Wednesday 15 January 2025, 14:30 local time.
const NOW = new Date(2025, 0, 15, 14, 30).getTime();
const at = (y: number, m: number, d: number, h = 12, min = 0) => new Date(y, m - 1, d, h, min).getTime();

const NAMES: Record<string, string> = { u1: 'Alice Carer', u2: 'Bob Builder' };
const context = { now: NOW, authorName: (id: string | null) => (id && NAMES[id]) || 'Deleted user' };

function post(id: string, overrides: Partial<TestPost> = {}): TestPost {
  return {
    id,
    authorId: 'u1',
    content: `Post ${id}`,
    category: 'company_announcement',
    houseTags: [],
    createdAt: NOW,
    ...overrides,
  };
}

const ids = (posts: TestPost[]) => posts.map((p) => p.id);
const run = (posts: TestPost[], filters: Partial<FeedFilters>, now = NOW) =>
  ids(filterPosts(posts, { ...NO_FILTERS, ...filters }, { ...context, now }));

describe('filterPosts', () => {
  it('keeps every post, in order, when no filter is set', () => {
    const posts = [post('a'), post('b', { category: 'nonsense' }), post('c', { createdAt: 0 })];
    expect(run(posts, {})).toEqual(['a', 'b', 'c']);
  });

  describe('category', () => {
    const posts = [
      post('maintenance', { category: 'buildings_maintenance' }),
      post('business', { category: 'business' }),
      post('announcement', { category: 'company_announcement' }),
      post('residents', { category: 'residents_activities' }),
      post('activity', { category: 'activity' }),
      post('wages-hr', { category: 'wages_hr' }),
      post('wages', { category: 'wages' }),
      post('shifts', { category: 'shifts_lifts' }),
      post('general', { category: 'something_else' }),
    ];

    it('keeps only the chosen category', () => {
      expect(run(posts, { category: 'company_announcement' })).toEqual(['announcement']);
      expect(run(posts, { category: 'shifts_lifts' })).toEqual(['shifts']);
    });

    it('counts the legacy values business, activity and wages as their modern category', () => {
      expect(run(posts, { category: 'buildings_maintenance' })).toEqual(['maintenance', 'business']);
      expect(run(posts, { category: 'residents_activities' })).toEqual(['residents', 'activity']);
      expect(run(posts, { category: 'wages_hr' })).toEqual(['wages-hr', 'wages']);
    });

    it('shows an unknown category only under All', () => {
      expect(run(posts, {})).toContain('general');
      for (const category of [
        'buildings_maintenance',
        'company_announcement',
        'residents_activities',
        'wages_hr',
        'shifts_lifts',
      ] as const) {
        expect(run(posts, { category })).not.toContain('general');
      }
    });
  });

  describe('category labels', () => {
    it('shows legacy values with their modern label and anything else as General', () => {
      expect(categoryLabel('business')).toBe('Buildings and Maintenance');
      expect(categoryLabel('activity')).toBe('Residents Activities');
      expect(categoryLabel('wages')).toBe('Wages and HR');
      expect(categoryLabel('shifts_lifts')).toBe('Shifts & Lifts');
      expect(categoryLabel('company_announcement')).toBe('Company Announcement');
      expect(categoryLabel('something_else')).toBe('General');
      expect(categoryLabel('')).toBe('General');
    });
  });

  describe('house', () => {
    const posts = [
      post('giles', { category: 'residents_activities', houseTags: ['Giles House'] }),
      post('both', { category: 'activity', houseTags: ['Giles House', 'Tudor Way'] }),
      post('tudor', { category: 'residents_activities', houseTags: ['Tudor Way'] }),
      post('untagged', { category: 'residents_activities' }),
      post('other-category', { category: 'wages_hr' }),
    ];

    it('keeps residents activities tagged with the house', () => {
      expect(run(posts, { category: 'residents_activities', house: 'Giles House' })).toEqual(['giles', 'both']);
    });

    it('lets posts of other categories pass', () => {
      expect(run(posts, { house: 'Tudor Way' })).toEqual(['both', 'tudor', 'other-category']);
    });

    it('keeps everything when the house is all', () => {
      expect(run(posts, { category: 'residents_activities', house: 'all' })).toEqual([
        'giles',
        'both',
        'tudor',
        'untagged',
      ]);
    });
  });

  describe('date', () => {
    const posts = [
      post('now', { createdAt: NOW }),
      post('today-midnight', { createdAt: at(2025, 1, 15, 0, 0) }),
      post('yesterday-late', { createdAt: at(2025, 1, 14, 23, 59) }),
      post('yesterday-midnight', { createdAt: at(2025, 1, 14, 0, 0) }),
      post('monday', { createdAt: at(2025, 1, 13, 9) }),
      post('sunday-midnight', { createdAt: at(2025, 1, 12, 0, 0) }),
      post('saturday', { createdAt: at(2025, 1, 11, 23, 59) }),
      post('eight-days', { createdAt: NOW - 8 * 24 * 3600 * 1000 }),
      post('first-of-month', { createdAt: at(2025, 1, 1, 0, 0) }),
      post('last-month', { createdAt: at(2024, 12, 31, 23, 59) }),
      post('twenty-nine-days', { createdAt: NOW - 29 * 24 * 3600 * 1000 }),
      post('thirty-one-days', { createdAt: NOW - 31 * 24 * 3600 * 1000 }),
    ];

    it('today: from midnight today', () => {
      expect(run(posts, { date: 'today' })).toEqual(['now', 'today-midnight']);
    });

    it('yesterday: the whole of yesterday, nothing of today', () => {
      expect(run(posts, { date: 'yesterday' })).toEqual(['yesterday-late', 'yesterday-midnight']);
    });

    it('last 7 days: the last 7 times 24 hours', () => {
      expect(run(posts, { date: 'last_7_days' })).toEqual([
        'now',
        'today-midnight',
        'yesterday-late',
        'yesterday-midnight',
        'monday',
        'sunday-midnight',
        'saturday',
      ]);
    });

    it('this week: from the most recent Sunday at midnight', () => {
      expect(run(posts, { date: 'this_week' })).toEqual([
        'now',
        'today-midnight',
        'yesterday-late',
        'yesterday-midnight',
        'monday',
        'sunday-midnight',
      ]);
    });

    it('this week on a Sunday starts that same day', () => {
      const sunday = at(2025, 1, 12, 10);
      expect(dateWindow('this_week', sunday)[0]).toBe(at(2025, 1, 12, 0, 0));
    });

    it('last 30 days: the last 30 times 24 hours', () => {
      const kept = run(posts, { date: 'last_30_days' });
      expect(kept).toContain('twenty-nine-days');
      expect(kept).toContain('last-month');
      expect(kept).not.toContain('thirty-one-days');
    });

    it('this month: from the 1st at midnight', () => {
      const kept = run(posts, { date: 'this_month' });
      expect(kept).toContain('first-of-month');
      expect(kept).not.toContain('last-month');
      expect(kept).not.toContain('thirty-one-days');
    });
  });

  describe('search', () => {
    const posts = [
      post('content', { content: 'The BOILER at Giles House is fixed' }),
      post('by-bob', { authorId: 'u2', content: 'Shift swap on Friday' }),
      post('deleted-author', { authorId: null, content: 'Old news' }),
      post('unrelated', { content: 'Lunch menu' }),
    ];

    it('matches the content case-insensitively', () => {
      expect(run(posts, { search: 'boiler' })).toEqual(['content']);
      expect(run(posts, { search: 'giles HOUSE' })).toEqual(['content']);
    });

    it("matches the author's full name", () => {
      expect(run(posts, { search: 'bob builder' })).toEqual(['by-bob']);
      expect(run(posts, { search: 'BUILDER' })).toEqual(['by-bob']);
      expect(run(posts, { search: 'deleted user' })).toEqual(['deleted-author']);
    });

    it('ignores surrounding spaces and treats blank as no search', () => {
      expect(run(posts, { search: '  lunch ' })).toEqual(['unrelated']);
      expect(run(posts, { search: '   ' })).toHaveLength(4);
    });

    it('combines with the other filters', () => {
      expect(run(posts, { search: 'shift', category: 'wages_hr' })).toEqual([]);
    });
  });

  it('filters 10,000 posts in well under 50 ms', () => {
    const categories = ['buildings_maintenance', 'company_announcement', 'residents_activities', 'wages', 'x'];
    const posts = Array.from({ length: 10_000 }, (_, i) =>
      post(String(i), {
        authorId: i % 3 ? 'u1' : 'u2',
        category: categories[i % categories.length],
        houseTags: i % 2 ? ['Giles House'] : [],
        content: `Update number ${i}: the residents enjoyed a trip to the seaside and the garden party. `.repeat(3),
        createdAt: NOW - i * 60_000,
      }),
    );
    const filters: FeedFilters[] = [
      { ...NO_FILTERS, search: 'NUMBER 9999:' },
      { ...NO_FILTERS, search: 'bob' },
      { category: 'residents_activities', house: 'Giles House', date: 'this_month', search: 'garden' },
    ];
    for (const f of filters) filterPosts(posts, f, context); // warm up the JIT
    const started = performance.now();
    for (const f of filters) filterPosts(posts, f, context);
    const perRun = (performance.now() - started) / filters.length;
    expect(perRun).toBeLessThan(50);
    expect(filterPosts(posts, filters[0], context)).toHaveLength(1);
  });
});
