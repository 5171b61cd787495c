import { z } from 'zod';
import { SuggestionSchema, type Suggestion, type SuggestionBody } from '../../../schema/suggestions';
import { api } from '../../lib/api';

/** POST /api/suggestions (spec section 7). */
export async function submitSuggestion(body: SuggestionBody): Promise<Suggestion> {
  return SuggestionSchema.parse(await api.post('/api/suggestions', body));
}

/** GET /api/suggestions: System Administrators only, newest first. */
export async function listSuggestions(): Promise<Suggestion[]> {
  return z.array(SuggestionSchema).parse(await api.get('/api/suggestions'));
}
