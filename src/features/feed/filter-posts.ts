import { HOUSE_TAGGED_CATEGORY, toPostCategory, type PostCategory } from '../../../schema/post-rules';

/** The seven date filters (docs/behaviour.md, "Feed"), in the order the date filter lists them. */
export const DATE_FILTERS = [
  'all',
  'today',
  'yesterday',
  'last_7_days',
  'this_week',
  'last_30_days',
  'this_month',
] as const;
export type DateFilter = (typeof DATE_FILTERS)[number];

export const DATE_FILTER_LABELS: Record<DateFilter, string> = {
  all: 'All Time',
  today: 'Today',
  yesterday: 'Yesterday',
  last_7_days: 'Last 7 Days',
  this_week: 'This Week',
  last_30_days: 'Last 30 Days',
  this_month: 'This Month',
};

export type CategoryFilter = 'all' | PostCategory;

/** What the feed is filtered by; house is a house name or 'all'. */
export interface FeedFilters {
  category: CategoryFilter;
  house: string;
  date: DateFilter;
  search: string;
}

export const NO_FILTERS: FeedFilters = { category: 'all', house: 'all', date: 'all', search: '' };

/** The fields of a post the filters look at. */
export interface FilterablePost {
  authorId: string | null;
  content: string;
  category: string;
  houseTags: readonly string[];
  createdAt: number;
}

export interface FilterContext {
  /** The reference time for the date filters (ms); tests pass a fixed one. */
  now: number;
  /** The author's full name as the card shows it ("Deleted user" for a deleted account). */
  authorName: (authorId: string | null) => string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function startOfDay(time: number, daysBack = 0): number {
  const d = new Date(time);
  // setDate keeps local midnight correct across daylight-saving changes, unlike subtracting 24 h.
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - daysBack).getTime();
}

/** The [from, to) window of a date filter, judged on createdAt in local time (docs/behaviour.md, "Feed"). */
export function dateWindow(filter: DateFilter, now: number): [number, number] {
  const today = startOfDay(now);
  switch (filter) {
    case 'all':
      return [-Infinity, Infinity];
    case 'today':
      return [today, Infinity];
    case 'yesterday':
      return [startOfDay(now, 1), today];
    case 'last_7_days':
      return [now - 7 * DAY_MS, Infinity];
    case 'this_week':
      // The week starts at the most recent Sunday at midnight (getDay() is 0 on Sundays).
      return [startOfDay(now, new Date(now).getDay()), Infinity];
    case 'last_30_days':
      return [now - 30 * DAY_MS, Infinity];
    case 'this_month': {
      const d = new Date(now);
      return [new Date(d.getFullYear(), d.getMonth(), 1).getTime(), Infinity];
    }
  }
}

/** Whether any filter narrows the list (the empty state then says "Try adjusting your search terms."). */
export function isSearchActive(filters: FeedFilters): boolean {
  return filters.search.trim() !== '';
}

/**
 * The posts that pass every filter (docs/behaviour.md, "Feed"), in their original order: category (legacy values
 * count as their modern category), house (only residents_activities posts are checked; others pass), date,
 * and a case-insensitive search over the content and the author's full name. Pure and linear: 10,000 posts
 * take a few milliseconds.
 */
export function filterPosts<T extends FilterablePost>(
  posts: readonly T[],
  filters: FeedFilters,
  context: FilterContext,
): T[] {
  const { category, house, date } = filters;
  const term = filters.search.trim().toLowerCase();
  const [from, to] = dateWindow(date, context.now);
  const names = new Map<string | null, string>();
  const nameOf = (authorId: string | null) => {
    let name = names.get(authorId);
    if (name === undefined) {
      name = context.authorName(authorId).toLowerCase();
      names.set(authorId, name);
    }
    return name;
  };

  return posts.filter((post) => {
    if (post.createdAt < from || post.createdAt >= to) return false;
    const modern = toPostCategory(post.category);
    if (category !== 'all' && modern !== category) return false;
    if (house !== 'all' && modern === HOUSE_TAGGED_CATEGORY && !post.houseTags.includes(house)) return false;
    if (!term) return true;
    return post.content.toLowerCase().includes(term) || nameOf(post.authorId).includes(term);
  });
}
