import {
  useMemo,
  useRef,
  useState,
  type ChangeEvent,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
  type SyntheticEvent,
} from 'react';
import { map } from 'rxjs';
import type { CurrentUser } from '../../schema/auth';
import { MENTIONS_MAX } from '../../schema/mention-rules';
import type { DirectoryUserLocal } from '../db/collections';
import { AccountTypeBadge } from './account-type-badge';
import type { LocalStore } from '../db/local-store-state';
import {
  insertMention,
  matchMentionCandidates,
  mentionCandidates,
  mentionQueryAt,
  suggestionKey,
  type MentionCandidate,
} from '../lib/mentions';
import { useHouses } from '../lib/use-houses';
import { useObservable } from '../lib/use-observable';

const NO_USERS: DirectoryUserLocal[] = [];

/** What `@` offers: the active colleagues of the local directory and the houses, offline too (decision 144). */
export function useMentionCandidates(store: LocalStore | null, me: CurrentUser): MentionCandidate[] {
  const users$ = useMemo(
    () => store?.db.users.find().$.pipe(map((docs) => docs.map((doc): DirectoryUserLocal => doc._data))) ?? null,
    [store],
  );
  const users = useObservable(users$, NO_USERS).value;
  const houses = useHouses();
  return useMemo(() => mentionCandidates(users, houses, me.id), [users, houses, me.id]);
}

/** The suggestion list under a field: a listbox whose active option the field names (a combobox). */
export function MentionSuggestions({
  id,
  options,
  active,
  onPick,
}: {
  id: string;
  options: readonly MentionCandidate[];
  active: number;
  onPick: (index: number) => void;
}) {
  return (
    <ul role="listbox" id={id} aria-label="Mention a colleague or house" className="mention-list">
      {options.map((option, index) => (
        <li
          key={option.mention}
          id={`${id}-${index}`}
          role="option"
          tabIndex={-1}
          aria-selected={index === active}
          className={index === active ? 'mention-option mention-option-active' : 'mention-option'}
          // Picked on press, before the field loses focus.
          onMouseDown={(event) => {
            event.preventDefault();
            onPick(index);
          }}
        >
          <span className="mention-option-name">
            @{option.label}
            <AccountTypeBadge type={option.type} />
          </span>
          {option.detail ? <span className="mention-option-detail muted">{option.detail}</span> : null}
        </li>
      ))}
    </ul>
  );
}

type TextField = HTMLInputElement | HTMLTextAreaElement;

/**
 * Makes a text field a combobox of mentions (decision 144): typing `@` and a name lists matching colleagues and
 * houses; arrows move, Enter or Tab picks, Escape closes. Picking writes `@Name ` into the text and adds the id to
 * `mentions`. Spread `fieldProps` on the field and render `suggestions` after it. A one-line field takes the
 * combobox role; a textarea may only be a textbox (ARIA in HTML), so it names the list and its active option alone.
 */
export function useMentionField<E extends TextField>({
  listId,
  field,
  value,
  onValueChange,
  candidates,
  mentions,
  onMentionsChange,
  multiline = false,
}: {
  /** A textarea rather than a one-line input. */
  multiline?: boolean;
  listId: string;
  field: RefObject<E | null>;
  value: string;
  onValueChange: (value: string) => void;
  candidates: readonly MentionCandidate[];
  mentions: readonly string[];
  onMentionsChange: (mentions: string[]) => void;
}): { fieldProps: MentionFieldProps<E>; suggestions: ReactNode } {
  const [caret, setCaret] = useState<number | null>(null);
  const [active, setActive] = useState(0);
  // Escape, or a pick, closes the list for this `@` until another is typed.
  const [dismissed, setDismissed] = useState<number | null>(null);
  const query = caret === null ? null : mentionQueryAt(value, caret);
  const typed = query?.query ?? null;
  const options = useMemo(() => (typed === null ? [] : matchMentionCandidates(candidates, typed)), [candidates, typed]);
  const open = query !== null && options.length > 0 && dismissed !== query.start;
  const current = Math.min(active, Math.max(options.length - 1, 0));
  const pending = useRef<number | null>(null);

  const pick = (index: number) => {
    const option = options[index];
    if (!query || !option) return;
    const next = insertMention(value, query, option.label);
    onValueChange(next.text);
    if (!mentions.includes(option.mention) && mentions.length < MENTIONS_MAX) {
      onMentionsChange([...mentions, option.mention]);
    }
    setCaret(next.caret);
    setActive(0);
    // The name just written is not a query any more: the list opens again only for another `@`.
    setDismissed(query.start);
    pending.current = next.caret;
    // The caret goes after the inserted name once React has written the new text.
    requestAnimationFrame(() => {
      const element = field.current;
      if (!element || pending.current === null) return;
      element.focus();
      element.setSelectionRange(pending.current, pending.current);
      pending.current = null;
    });
  };

  const track = (event: SyntheticEvent<E>) => setCaret(event.currentTarget.selectionStart);
  const fieldProps: MentionFieldProps<E> = {
    ...(multiline ? {} : { role: 'combobox' as const, 'aria-expanded': open }),
    'aria-autocomplete': 'list',
    // Only while the list is there: a reference to no element is an error for assistive technology.
    'aria-controls': open ? listId : undefined,
    'aria-activedescendant': open ? `${listId}-${current}` : undefined,
    onChange: (event) => {
      const { value: text, selectionStart } = event.target;
      onValueChange(text);
      setCaret(selectionStart);
      setActive(0);
      // A freshly typed `@` asks again, even where a closed list's `@` was.
      if (selectionStart !== null && mentionQueryAt(text, selectionStart)?.query === '') setDismissed(null);
    },
    onSelect: track,
    onKeyDown: (event) => {
      const result = suggestionKey({ open, active: current }, event.key, options.length);
      if (!result.handled) return;
      event.preventDefault();
      setActive(result.state.active);
      if (result.pick !== null) pick(result.pick);
      else if (!result.state.open && query) setDismissed(query.start);
    },
    onBlur: () => setCaret(null),
  };
  const suggestions = open ? <MentionSuggestions id={listId} options={options} active={current} onPick={pick} /> : null;
  return { fieldProps, suggestions };
}

/** The props the mention combobox sets on its text field. */
export interface MentionFieldProps<E extends TextField> {
  role?: 'combobox';
  'aria-autocomplete': 'list';
  'aria-expanded'?: boolean;
  'aria-controls': string | undefined;
  'aria-activedescendant': string | undefined;
  onChange: (event: ChangeEvent<E>) => void;
  onSelect: (event: SyntheticEvent<E>) => void;
  onKeyDown: (event: KeyboardEvent<E>) => void;
  onBlur: () => void;
}
