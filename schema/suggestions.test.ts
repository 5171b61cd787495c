import { describe, expect, it } from 'vitest';
import { isSuggestionComplete, SuggestionBodySchema, SUGGESTION_MESSAGES } from './suggestions';

describe('isSuggestionComplete', () => {
  it('needs a title, a description and a category', () => {
    expect(isSuggestionComplete({ title: 'A', content: 'B', category: 'other' })).toBe(true);
    expect(isSuggestionComplete({ title: '  ', content: 'B', category: 'other' })).toBe(false);
    expect(isSuggestionComplete({ title: 'A', content: '\n', category: 'other' })).toBe(false);
    expect(isSuggestionComplete({ title: 'A', content: 'B', category: '' })).toBe(false);
  });
});

describe('SuggestionBodySchema', () => {
  it('trims, and counts the limits after trimming', () => {
    const parsed = SuggestionBodySchema.parse({
      title: ` ${'a'.repeat(255)} `,
      content: ' b ',
      category: 'performance',
    });
    expect(parsed).toEqual({ title: 'a'.repeat(255), content: 'b', category: 'performance' });
  });

  it('refuses 256 and 1001 characters with their messages', () => {
    const result = SuggestionBodySchema.safeParse({ title: 'a'.repeat(256), content: 'b'.repeat(1001), category: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual([
      SUGGESTION_MESSAGES.titleTooLong,
      SUGGESTION_MESSAGES.contentTooLong,
      SUGGESTION_MESSAGES.category,
    ]);
  });
});
