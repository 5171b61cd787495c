/**
 * Suggestion categories, texts and limits, apart from the zod schemas (suggestions.ts) so that the header's first
 * script builds none (decision 113).
 */
import { LIMITS } from './constants';

/** Suggestion categories (docs/behaviour.md, "Support and suggestions"), in the order the dialog offers them. */
export const SUGGESTION_CATEGORIES = [
  'app_feature',
  'user_interface',
  'performance',
  'communication',
  'other',
] as const;
export type SuggestionCategory = (typeof SUGGESTION_CATEGORIES)[number];

export const SUGGESTION_CATEGORY_LABELS: Record<SuggestionCategory, string> = {
  app_feature: 'App Feature',
  user_interface: 'User Interface',
  performance: 'Performance',
  communication: 'Communication',
  other: 'Other',
};

export const SUGGESTION_MESSAGES = {
  /** docs/behaviour.md, "Support and suggestions": the toast "Missing Information" says this when a field is empty. */
  missing: 'Please fill in all fields before submitting.',
  titleTooLong: `Title must be at most ${LIMITS.suggestionTitleMax} characters`,
  contentTooLong: `Description must be at most ${LIMITS.suggestionContentMax} characters`,
  category: `Category must be one of ${SUGGESTION_CATEGORIES.join(', ')}`,
  listForbidden: 'System Administrator access required.',
} as const;

/**
 * Whether every field of the dialog is filled in (docs/behaviour.md, "Support and suggestions"); the dialog shows
 * "Missing Information" if not.
 */
export function isSuggestionComplete(input: { title: string; content: string; category: string }): boolean {
  return input.title.trim() !== '' && input.content.trim() !== '' && input.category !== '';
}

/** The most GET /api/suggestions answers, newest first (the list has no paging; decision 45). */
export const SUGGESTION_LIST_MAX = 1000;
