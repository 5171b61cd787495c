import { desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { suggestions, users } from '../../db/tables';

export type SuggestionRow = typeof suggestions.$inferSelect;

export async function insertSuggestion(db: Db, row: SuggestionRow): Promise<void> {
  await db.insert(suggestions).values(row).run();
}

/** Suggestions newest first with their author's current name (null when the account was deleted). */
export function listSuggestionsWithAuthors(db: Db, limit: number) {
  return db
    .select({ suggestion: suggestions, firstName: users.firstName, lastName: users.lastName })
    .from(suggestions)
    .leftJoin(users, eq(users.id, suggestions.authorId))
    .orderBy(desc(suggestions.createdAt), desc(suggestions.id))
    .limit(limit)
    .all();
}
