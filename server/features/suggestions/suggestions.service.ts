import { randomUUID } from 'node:crypto';
import { canReadSuggestions } from '../../../schema/permissions';
import { DELETED_AUTHOR } from '../../../schema/posts';
import {
  SUGGESTION_LIST_MAX,
  SUGGESTION_MESSAGES,
  type Suggestion,
  type SuggestionBody,
  type SuggestionCategory,
} from '../../../schema/suggestions';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { forbidden } from '../../lib/errors';
import { recordAudit } from '../audit/audit.service';
import { insertSuggestion, listSuggestionsWithAuthors, type SuggestionRow } from './suggestions.queries';
import { inTransaction } from '../../db/client';

function toSuggestion(row: SuggestionRow, author: { firstName: string | null; lastName: string | null }): Suggestion {
  return {
    id: row.id,
    title: row.title,
    // Stored only after the schema accepted it.
    category: row.category as SuggestionCategory,
    content: row.content,
    createdAt: new Date(row.createdAt).toISOString(),
    author:
      author.firstName === null
        ? { firstName: DELETED_AUTHOR.firstName, lastName: DELETED_AUTHOR.lastName }
        : { firstName: author.firstName, lastName: author.lastName ?? '' },
  };
}

/** POST /api/suggestions: any active signed-in user suggests an improvement; the submission is audited. */
export async function submitSuggestion(
  deps: AppDeps,
  actor: SessionUser,
  body: SuggestionBody,
  meta: RequestMeta,
): Promise<Suggestion> {
  const row: SuggestionRow = { id: randomUUID(), authorId: actor.id, ...body, createdAt: deps.now() };
  await inTransaction(deps, async (deps) => {
    await insertSuggestion(deps.db, row);
    await recordAudit(deps.db, {
      actor,
      action: 'suggestion.created',
      ip: meta.ip,
      target: { type: 'suggestion', id: row.id },
      details: { category: row.category },
      at: row.createdAt,
    });
  });
  return toSuggestion(row, actor);
}

/**
 * GET /api/suggestions: the Staff Suggestions list, newest first; System Administrators only
 * (docs/behaviour.md, "Support and suggestions").
 */
export async function listSuggestions(deps: AppDeps, actor: SessionUser): Promise<Suggestion[]> {
  if (!canReadSuggestions(actor)) forbidden(SUGGESTION_MESSAGES.listForbidden);
  return (await listSuggestionsWithAuthors(deps.db, SUGGESTION_LIST_MAX)).map(({ suggestion, firstName, lastName }) =>
    toSuggestion(suggestion, { firstName, lastName }),
  );
}
