import { z } from 'zod';
import { LIMITS } from './constants';
import { SUGGESTION_CATEGORIES, SUGGESTION_MESSAGES } from './suggestion-rules';

export * from './suggestion-rules';

/**
 * POST /api/suggestions (docs/behaviour.md, "Support and suggestions"): title, description (content) and category, all
 * required.
 */
export const SuggestionBodySchema = z.object({
  title: z
    .string({ message: SUGGESTION_MESSAGES.missing })
    .trim()
    .min(1, SUGGESTION_MESSAGES.missing)
    .max(LIMITS.suggestionTitleMax, SUGGESTION_MESSAGES.titleTooLong),
  content: z
    .string({ message: SUGGESTION_MESSAGES.missing })
    .trim()
    .min(1, SUGGESTION_MESSAGES.missing)
    .max(LIMITS.suggestionContentMax, SUGGESTION_MESSAGES.contentTooLong),
  category: z.enum(SUGGESTION_CATEGORIES, { message: SUGGESTION_MESSAGES.category }),
});
export type SuggestionBody = z.infer<typeof SuggestionBodySchema>;

/** A suggestion as GET /api/suggestions lists it (docs/behaviour.md, "Support and suggestions"). */
export const SuggestionSchema = z.object({
  id: z.string(),
  title: z.string(),
  category: z.enum(SUGGESTION_CATEGORIES),
  content: z.string(),
  createdAt: z.string(),
  author: z.object({ firstName: z.string(), lastName: z.string() }),
});
export type Suggestion = z.infer<typeof SuggestionSchema>;

/** GET /api/suggestions. */
export const SuggestionListSchema = z.array(SuggestionSchema);
