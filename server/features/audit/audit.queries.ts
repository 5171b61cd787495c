import { and, desc, eq, getTableColumns, gte, lt, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { iterate, type Db } from '../../db/client';
import { auditLog, users } from '../../db/tables';

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = typeof auditLog.$inferInsert;

export async function insertAuditEntry(db: Db, row: NewAuditRow): Promise<void> {
  await db.insert(auditLog).values(row).run();
}

export async function listAuditEntries(db: Db, limit = 500): Promise<AuditRow[]> {
  return await db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(limit).all();
}

/** Filters of the audit screen, already checked; times in milliseconds. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  from?: number;
  to?: number;
  /** Rows strictly older than this (at, id) position. */
  before?: { at: number; id: number };
}

const actorUser = alias(users, 'actor_user');
const targetUser = alias(users, 'target_user');

/** `%text%` for LIKE with the wildcards of the text itself escaped (used with ESCAPE '\'). */
function containing(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

function whereOf(filter: AuditFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [];
  if (filter.actor) {
    const like = containing(filter.actor);
    conditions.push(
      or(
        eq(auditLog.actorId, filter.actor),
        sql`lower(${auditLog.actorEmail}) LIKE ${like} ESCAPE '\\'`,
        sql`lower(${actorUser.firstName} || ' ' || ${actorUser.lastName}) LIKE ${like} ESCAPE '\\'`,
      ),
    );
  }
  if (filter.action) conditions.push(eq(auditLog.action, filter.action));
  if (filter.from !== undefined) conditions.push(gte(auditLog.at, filter.from));
  if (filter.to !== undefined) conditions.push(lt(auditLog.at, filter.to));
  if (filter.before) {
    conditions.push(sql`(${auditLog.at}, ${auditLog.id}) < (${filter.before.at}, ${filter.before.id})`);
  }
  return and(...conditions);
}

/** The columns of a search row, flat, in the order a raw row holds them. */
const searchColumns = {
  ...getTableColumns(auditLog),
  actorFirstName: actorUser.firstName,
  actorLastName: actorUser.lastName,
  targetFirstName: targetUser.firstName,
  targetLastName: targetUser.lastName,
};

function searchQuery(db: Db, filter: AuditFilter, limit: number) {
  return db
    .select(searchColumns)
    .from(auditLog)
    .leftJoin(actorUser, eq(actorUser.id, auditLog.actorId))
    .leftJoin(targetUser, and(eq(auditLog.targetType, 'user'), eq(targetUser.id, auditLog.targetId)))
    .where(whereOf(filter))
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(limit);
}

type FlatSearchRow = Awaited<ReturnType<ReturnType<typeof searchQuery>['all']>>[number];

function toSearchRow({ actorFirstName, actorLastName, targetFirstName, targetLastName, ...entry }: FlatSearchRow) {
  return { entry, actorFirstName, actorLastName, targetFirstName, targetLastName };
}

/**
 * Audit entries matching the filter, newest first, with the actor's current name and, for entries about a
 * user, that user's current name.
 */
export async function searchAuditEntries(db: Db, filter: AuditFilter, limit: number) {
  return (await searchQuery(db, filter, limit).all()).map(toSearchRow);
}

export type AuditSearchRow = ReturnType<typeof toSearchRow>;

/**
 * The same entries one at a time, streamed (for the CSV export, decision 130): `iterate` reads on a connection of its
 * own, so the app's stays free while the export runs.
 */
export async function* iterateAuditEntries(db: Db, filter: AuditFilter, limit: number): AsyncGenerator<AuditSearchRow> {
  const { sql: text, params } = searchQuery(db, filter, limit).toSQL();
  const keys = Object.keys(searchColumns);
  for await (const values of iterate(db, text, params)) {
    // A raw row holds the selected columns in the order drizzle wrote them, which is searchColumns' order.
    const cells = values as unknown[];
    yield toSearchRow(Object.fromEntries(keys.map((key, i) => [key, cells[i]])) as FlatSearchRow);
  }
}
