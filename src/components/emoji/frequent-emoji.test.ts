import { describe, expect, it } from 'vitest';
import { EMOJI_PICKER } from '../../../schema/constants';
import { FREQUENT_EMOJI_KEY, readFrequentEmoji, recordEmojiUse } from './frequent-emoji';
import { insertText } from './insert-text';

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem'> & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (key) => data.get(key) ?? null, setItem: (key, value) => void data.set(key, value) };
}

describe('the emoji picker\'s "Frequently Used" row', () => {
  it('lists the most chosen emoji first, and the latest first among equals', () => {
    const storage = memoryStorage();
    recordEmojiUse('😀', 1, storage);
    recordEmojiUse('🎉', 2, storage);
    recordEmojiUse('👍', 3, storage);
    recordEmojiUse('🎉', 4, storage);
    expect(readFrequentEmoji(storage)).toEqual(['🎉', '👍', '😀']);
  });

  it("shows at most the row's size, and forgets the least used beyond twice that", () => {
    const storage = memoryStorage();
    const many = Array.from({ length: EMOJI_PICKER.frequentMax * 3 }, (_, i) => String.fromCodePoint(0x1f600 + i));
    many.forEach((emoji, i) => recordEmojiUse(emoji, i, storage));
    expect(readFrequentEmoji(storage)).toHaveLength(EMOJI_PICKER.frequentMax);
    const stored: unknown[] = JSON.parse(storage.data.get(FREQUENT_EMOJI_KEY)!);
    expect(stored).toHaveLength(EMOJI_PICKER.frequentMax * 2);
  });

  it('reads anything unreadable as no list', () => {
    const storage = memoryStorage();
    storage.setItem(FREQUENT_EMOJI_KEY, '{not json');
    expect(readFrequentEmoji(storage)).toEqual([]);
    storage.setItem(FREQUENT_EMOJI_KEY, JSON.stringify([{ emoji: 5 }, { emoji: '😀', count: 2, at: 1 }]));
    expect(readFrequentEmoji(storage)).toEqual(['😀']);
  });
});

describe('inserting an emoji into a field', () => {
  it('replaces the selection and puts the caret after the emoji', () => {
    expect(insertText('Hello world', '👋', 5, 11)).toEqual({ value: 'Hello👋', caret: 7 });
    expect(insertText('ab', '😀', 1, 1)).toEqual({ value: 'a😀b', caret: 3 });
  });

  it('goes at the end of a field that never had a caret', () => {
    expect(insertText('Hi', '😀', null, null)).toEqual({ value: 'Hi😀', caret: 4 });
  });

  it('leaves a field at its limit as it is', () => {
    expect(insertText('abc', '😀', 3, 3, 4)).toEqual({ value: 'abc', caret: 3 });
  });
});
