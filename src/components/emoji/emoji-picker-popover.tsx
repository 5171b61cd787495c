import { EmojiPicker, getEmojiDetails } from 'frimousse';
import { Popover } from 'radix-ui';
import { useState, type RefObject } from 'react';
import { EMOJI_PICKER } from '../../../schema/constants';
import { readFrequentEmoji } from './frequent-emoji';
import './emoji-picker.css';

/** Names of the default reactions (decision 129), read before the picker's data has loaded. */
const REACTION_NAMES: Record<string, string> = {
  '👍': 'Thumbs up',
  '❤️': 'Red heart',
  '😃': 'Grinning face with big eyes',
  '😢': 'Crying face',
  '🙏': 'Folded hands',
  '👎': 'Thumbs down',
  '😡': 'Enraged face',
};

/** frimousse keeps the data it has read in localStorage, one entry per data address; only the current one stays. */
function forgetOtherEmojiData(): void {
  try {
    const prefix = 'frimousse/data/';
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith(prefix) && !key.startsWith(`${prefix}${EMOJI_PICKER.dataUrl}/`)) localStorage.removeItem(key);
    }
  } catch {
    // Storage unavailable: nothing was kept either.
  }
}

function nameOf(emoji: string): string {
  return REACTION_NAMES[emoji] ?? getEmojiDetails(emoji, { emojibaseUrl: EMOJI_PICKER.dataUrl })?.label ?? emoji;
}

function EmojiRow({
  label,
  emojis,
  onPick,
}: {
  label: string;
  emojis: readonly string[];
  onPick: (e: string) => void;
}) {
  return (
    <div className="emoji-section" role="group" aria-label={label}>
      <p className="emoji-section-title" aria-hidden>
        {label}
      </p>
      <div className="emoji-grid">
        {emojis.map((emoji) => (
          <button
            key={emoji}
            type="button"
            className="emoji-cell"
            aria-label={nameOf(emoji)}
            onClick={() => onPick(emoji)}
          >
            {emoji}
          </button>
        ))}
      </div>
    </div>
  );
}

export interface EmojiPickerPopoverProps {
  anchor: RefObject<HTMLButtonElement | null>;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onPick: (emoji: string) => void;
  /** The picker has closed: the owner places focus. */
  onClosed: () => void;
}

/**
 * The emoji picker (decision 129), loaded on its first opening: search, the default reactions,
 * "Frequently Used" on this device, then every emoji by category (frimousse, virtualised). Its data is served by
 * the app itself and kept by the service worker, so it opens offline and asks no other host.
 */
export function EmojiPickerPopover({ anchor, open, onOpenChange, onPick, onClosed }: EmojiPickerPopoverProps) {
  const [search, setSearch] = useState('');
  const [frequent, setFrequent] = useState(readFrequentEmoji);
  const [shown, setShown] = useState(false);
  const [cleaned, setCleaned] = useState(false);
  if (!cleaned) {
    setCleaned(true);
    forgetOtherEmojiData();
  }
  // Each opening reads the list again (a choice made since is counted) and starts with an empty search.
  if (open !== shown) {
    setShown(open);
    if (open) {
      setFrequent(readFrequentEmoji());
      setSearch('');
    }
  }
  return (
    <Popover.Root open={open} onOpenChange={onOpenChange}>
      <Popover.Anchor virtualRef={anchor} />
      <Popover.Portal>
        <Popover.Content
          className="emoji-popover"
          side="top"
          align="start"
          sideOffset={6}
          collisionPadding={8}
          aria-label="Choose an emoji"
          style={{ width: EMOJI_PICKER.widthPx, height: EMOJI_PICKER.heightPx }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            onClosed();
          }}
          // A tap on the button that opened it is the button's own: it closes the picker.
          onInteractOutside={(event) => {
            if (event.target instanceof Node && anchor.current?.contains(event.target)) event.preventDefault();
          }}
        >
          <EmojiPicker.Root
            className="emoji-picker"
            columns={8}
            emojibaseUrl={EMOJI_PICKER.dataUrl}
            onEmojiSelect={({ emoji }) => onPick(emoji)}
          >
            <EmojiPicker.Search
              className="input emoji-search"
              aria-label="Search emoji"
              placeholder="Search emoji..."
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
            {search.trim() === '' ? (
              <>
                <EmojiRow label="Reactions" emojis={EMOJI_PICKER.defaultReactions} onPick={onPick} />
                {frequent.length > 0 ? <EmojiRow label="Frequently Used" emojis={frequent} onPick={onPick} /> : null}
              </>
            ) : null}
            <EmojiPicker.Viewport className="emoji-viewport">
              <EmojiPicker.Loading className="emoji-note">Loading emoji...</EmojiPicker.Loading>
              <EmojiPicker.Empty className="emoji-note">No emoji found.</EmojiPicker.Empty>
              <EmojiPicker.List className="emoji-list" />
            </EmojiPicker.Viewport>
          </EmojiPicker.Root>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
