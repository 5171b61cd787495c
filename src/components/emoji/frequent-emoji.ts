import { EMOJI_PICKER } from '../../../schema/constants';

/**
 * The emoji picker's "Frequently Used" row, kept per device in localStorage (decision 129): only
 * emoji and how often they were chosen, never what was written with them, so it is not the user's data and stays
 * after a sign-out, like the push prompt's flag.
 */
export const FREQUENT_EMOJI_KEY = 'sp_emoji_frequent';

/** More are remembered than shown, so an emoji used often last week is not pushed out by one used twice today. */
const REMEMBERED = EMOJI_PICKER.frequentMax * 2;

interface EmojiUse {
  emoji: string;
  count: number;
  at: number;
}

type Store = Pick<Storage, 'getItem' | 'setItem'>;

function readUses(storage: Store): EmojiUse[] {
  try {
    const list: unknown = JSON.parse(storage.getItem(FREQUENT_EMOJI_KEY) ?? '[]');
    if (!Array.isArray(list)) return [];
    return list.filter(
      (use): use is EmojiUse =>
        typeof use === 'object' &&
        use !== null &&
        typeof Reflect.get(use, 'emoji') === 'string' &&
        typeof Reflect.get(use, 'count') === 'number' &&
        typeof Reflect.get(use, 'at') === 'number',
    );
  } catch {
    return [];
  }
}

const byUse = (a: EmojiUse, b: EmojiUse) => b.count - a.count || b.at - a.at;

/** The most used emoji on this device, most used first (the latest first among equals). */
export function readFrequentEmoji(storage: Store = localStorage): string[] {
  return readUses(storage)
    .sort(byUse)
    .slice(0, EMOJI_PICKER.frequentMax)
    .map((use) => use.emoji);
}

/** Counts one choice of `emoji`; storage that cannot be written (private mode, full) only loses the count. */
export function recordEmojiUse(emoji: string, now = Date.now(), storage: Store = localStorage): void {
  const uses = readUses(storage);
  const found = uses.find((use) => use.emoji === emoji);
  if (found) {
    found.count += 1;
    found.at = now;
  } else {
    uses.push({ emoji, count: 1, at: now });
  }
  try {
    storage.setItem(FREQUENT_EMOJI_KEY, JSON.stringify(uses.sort(byUse).slice(0, REMEMBERED)));
  } catch {
    // Nothing else depends on it.
  }
}
