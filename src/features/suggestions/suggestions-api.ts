import type { Suggestion, SuggestionBody } from '../../../schema/suggestions';
import { api } from '../../lib/api';

/** The answers' schemas load with the first answer: the header's first script builds none (decision 113). */
const suggestionSchemas = () => import('../../../schema/suggestions');

/** POST /api/suggestions (docs/api-suggestions-audit.md). */
export async function submitSuggestion(body: SuggestionBody): Promise<Suggestion> {
  // The schema first: if its code cannot be fetched, the suggestion has not been sent (a retry cannot send it twice).
  const { SuggestionSchema } = await suggestionSchemas();
  const answer = await api.post('/api/suggestions', body);
  return SuggestionSchema.parse(answer);
}

/** GET /api/suggestions: System Administrators only, newest first. */
export async function listSuggestions(): Promise<Suggestion[]> {
  const [{ SuggestionListSchema }, answer] = await Promise.all([suggestionSchemas(), api.get('/api/suggestions')]);
  return SuggestionListSchema.parse(answer);
}
