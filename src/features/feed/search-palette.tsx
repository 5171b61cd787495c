import { Search } from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { useDeferredValue, useId, useMemo, useState, type KeyboardEvent } from 'react';
import { LIMITS } from '../../../schema/constants';
import { formatDateTime } from '../../../schema/format';
import { categoryLabel } from '../../../schema/post-rules';
import type { PostLocal } from '../../db/collections';
import { useBackCloses } from '../../lib/back-closes';
import { cx } from '../../lib/cx';
import { filterPosts, NO_FILTERS } from './filter-posts';
import type { AuthorLookup } from '../../lib/use-authors';
import { useReturnFocus } from '../../components/ui/return-focus';

interface SearchPaletteProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  posts: readonly PostLocal[];
  authors: AuthorLookup;
  onChoose: (postId: string) => void;
}

const SNIPPET = 120;

/** The first line of a post, shortened for a result row. */
function snippet(content: string): string {
  const line = content.trim().replace(/\s+/g, ' ');
  return line.length > SNIPPET ? `${line.slice(0, SNIPPET - 1)}…` : line;
}

/**
 * The search palette (docs/behaviour.md, "Feed"; Ctrl/Cmd+K or the header's search button): the first five posts
 * whose content or author matches, as a combobox with a listbox; choosing one closes it, and so does Back (decision 128).
 */
export function SearchPalette({ open, onOpenChange, ...rest }: SearchPaletteProps) {
  const returnFocus = useReturnFocus({});
  useBackCloses(open, () => onOpenChange(false));
  return (
    <DialogPrimitive.Root open={open} onOpenChange={onOpenChange}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="overlay" />
        <DialogPrimitive.Content {...returnFocus} className="dialog palette" aria-describedby={undefined}>
          <DialogPrimitive.Title className="visually-hidden">Search</DialogPrimitive.Title>
          {/* Mounted only while open, so each opening starts empty. */}
          <PaletteBody {...rest} onClose={() => onOpenChange(false)} />
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

function PaletteBody({
  posts,
  authors,
  onChoose,
  onClose,
}: Omit<SearchPaletteProps, 'open' | 'onOpenChange'> & { onClose: () => void }) {
  const id = useId();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const search = useDeferredValue(query);
  const results = useMemo(() => {
    if (!search.trim()) return [];
    // Only the search applies here; the date window is unused, so the time does not matter.
    const found = filterPosts(posts, { ...NO_FILTERS, search }, { now: 0, authorName: (a) => authors(a).name });
    return found.slice(0, LIMITS.searchMaxResults);
  }, [posts, authors, search]);
  const current = Math.min(active, Math.max(results.length - 1, 0));

  const choose = (postId: string) => {
    onClose();
    onChoose(postId);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((current + 1) % Math.max(results.length, 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((current - 1 + results.length) % Math.max(results.length, 1));
    } else if (event.key === 'Enter' && results[current]) {
      event.preventDefault();
      choose(results[current].id);
    }
  };

  return (
    <>
      <div className="palette-input-row">
        <Search aria-hidden size={18} />
        <input
          className="palette-input"
          role="combobox"
          aria-expanded={results.length > 0}
          aria-controls={results.length > 0 ? `${id}-list` : undefined}
          aria-activedescendant={results[current] ? `${id}-${results[current].id}` : undefined}
          aria-autocomplete="list"
          aria-label="Search posts, users, or content"
          placeholder="Search posts, users, or content..."
          value={query}
          onChange={(event) => {
            setQuery(event.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
        />
        <kbd className="palette-kbd">Esc</kbd>
      </div>
      {search.trim() && results.length === 0 ? <p className="palette-empty">No results found.</p> : null}
      {results.length > 0 ? (
        <div id={`${id}-list`} role="listbox" aria-labelledby={`${id}-group`} className="palette-list">
          <div role="group" aria-labelledby={`${id}-group`}>
            <p id={`${id}-group`} className="palette-group" role="presentation">
              Search Results
            </p>
            {results.map((post, index) => {
              const author = authors(post.authorId);
              return (
                // The input keeps focus and drives the options (aria-activedescendant); a click chooses too.
                // eslint-disable-next-line jsx-a11y/click-events-have-key-events
                <div
                  key={post.id}
                  id={`${id}-${post.id}`}
                  role="option"
                  aria-selected={index === current}
                  tabIndex={-1}
                  className={cx('palette-option', index === current && 'palette-option-active')}
                  onMouseEnter={() => setActive(index)}
                  onClick={() => choose(post.id)}
                >
                  <span className="palette-option-text">{snippet(post.content)}</span>
                  <span className="palette-option-meta">
                    {author.name} · {categoryLabel(post.category)} · {formatDateTime(post.writtenAt)}
                  </span>
                </div>
              );
            })}
          </div>
        </div>
      ) : null}
    </>
  );
}
