import { z } from 'zod';
import { LIMITS } from './constants';
import { SUGGESTION_CATEGORIES, SUGGESTION_MESSAGES } from './suggestion-rules';

export * from './suggestion-rules';

/** POST /api/suggestions (spec sections 5 and 7): title, description (content) and category, all required. */
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

/** A suggestion as GET /api/suggestions lists it (spec section 3). */
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
