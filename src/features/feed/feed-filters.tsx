import { Search, X } from 'lucide-react';
import { memo, useId } from 'react';
import { HOUSE_TAGGED_CATEGORY, POST_CATEGORIES, POST_CATEGORY_LABELS } from '../../../schema/post-rules';
import { Label } from '../../components/ui/label';
import { Select, type SelectOption } from '../../components/ui/select';
import { cx } from '../../lib/cx';
import {
  DATE_FILTER_LABELS,
  DATE_FILTERS,
  type CategoryFilter,
  type DateFilter,
  type FeedFilters,
} from './filter-posts';
import { useHouses } from '../../lib/use-houses';

const CATEGORY_CHIPS: { value: CategoryFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  ...POST_CATEGORIES.map((value) => ({ value, label: POST_CATEGORY_LABELS[value] })),
];

const DATE_OPTIONS: SelectOption<DateFilter>[] = DATE_FILTERS.map((value) => ({
  value,
  label: DATE_FILTER_LABELS[value],
}));

interface FeedFiltersBarProps {
  filters: FeedFilters;
  onChange: (filters: FeedFilters) => void;
}

/** Search, category chips, house and date filters (docs/behaviour.md, "Feed"; rules in filter-posts.ts). */
export const FeedFiltersBar = memo(function FeedFiltersBar({ filters, onChange }: FeedFiltersBarProps) {
  const id = useId();
  const houses = useHouses();
  const houseOptions: SelectOption<string>[] = [
    { value: 'all', label: 'All Houses' },
    ...houses.map((house) => ({ value: house, label: house })),
  ];

  return (
    <section className="feed-filters" aria-label="Filter posts">
      <div className="feed-search">
        <Search aria-hidden size={18} className="feed-search-icon" />
        <Label htmlFor={`${id}-search`} className="visually-hidden">
          Search posts
        </Label>
        <input
          id={`${id}-search`}
          type="search"
          className="input feed-search-input"
          placeholder="Search posts or people..."
          value={filters.search}
          onChange={(event) => onChange({ ...filters, search: event.target.value })}
        />
        {filters.search ? (
          <button
            type="button"
            className="feed-search-clear"
            aria-label="Clear search"
            onClick={() => onChange({ ...filters, search: '' })}
          >
            <X aria-hidden size={16} />
          </button>
        ) : null}
      </div>

      <div className="chip-row chip-row-scroll" role="group" aria-label="Filter by category">
        {CATEGORY_CHIPS.map((chip) => {
          const active = filters.category === chip.value;
          return (
            <button
              key={chip.value}
              type="button"
              className={cx('chip', active && 'chip-active')}
              aria-pressed={active}
              // docs/behaviour.md, "Feed": choosing a category resets house and date.
              onClick={() => onChange({ ...filters, category: chip.value, house: 'all', date: 'all' })}
            >
              {chip.label}
            </button>
          );
        })}
      </div>

      <div className="feed-selects">
        {filters.category === HOUSE_TAGGED_CATEGORY ? (
          <div className="feed-select">
            <Label htmlFor={`${id}-house`}>House</Label>
            <Select
              id={`${id}-house`}
              value={filters.house}
              onValueChange={(house) => onChange({ ...filters, house })}
              options={houseOptions}
            />
          </div>
        ) : null}
        <div className="feed-select">
          <Label htmlFor={`${id}-date`}>Date</Label>
          <Select
            id={`${id}-date`}
            value={filters.date}
            onValueChange={(date) => onChange({ ...filters, date })}
            options={DATE_OPTIONS}
          />
        </div>
      </div>
    </section>
  );
});
