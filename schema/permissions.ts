import type { AccountType } from './role-rules';
import type { Role } from './roles';

/** The parts of a user that permission rules look at. */
export interface Actor {
  id: string;
  role: Role;
}

export function isSystemAdmin(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'system_admin';
}

/** Admin Dashboard link: role admin, or isAdmin, or isMasterAdmin (docs/behaviour.md, "Administration"). */
export function canSeeAdminLink(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'admin' || actor.role === 'system_admin';
}

/** The /admin page and every user-management call: system administrators only. */
export function canManageUsers(actor: Pick<Actor, 'role'>): boolean {
  return isSystemAdmin(actor);
}

/** Edit and delete of a post: its author, or an admin or system admin (docs/behaviour.md, "Posts and categories"). */
export function canEditPost(actor: Actor, post: { authorId: string | null }): boolean {
  return post.authorId === actor.id || actor.role === 'admin' || actor.role === 'system_admin';
}

/** Every scheduled post, not only one's own (GET /api/posts/scheduled): admins and system admins (decision 141). */
export function canSeeAllScheduledPosts(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'admin' || actor.role === 'system_admin';
}

/** Delete of a comment: its author, or a System Administrator (docs/behaviour.md, "Comments and reactions"). */
export function canDeleteComment(actor: Actor, comment: { authorId: string | null }): boolean {
  return comment.authorId === actor.id || isSystemAdmin(actor);
}

/** The acknowledgement report of an urgent post: admins and system admins. */
export function canSeeAlertReport(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'admin' || actor.role === 'system_admin';
}

/** Marking a post "Requires confirmation" and its confirmation report and overview: admins and system admins. */
export function canRequireConfirmation(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'admin' || actor.role === 'system_admin';
}

/**
 * The Staff Suggestions list and GET /api/suggestions: system administrators only
 * (docs/behaviour.md, "Support and suggestions").
 */
export function canReadSuggestions(actor: Pick<Actor, 'role'>): boolean {
  return isSystemAdmin(actor);
}

/** The audit log screen and its CSV export: system administrators only. */
export function canReadAuditLog(actor: Pick<Actor, 'role'>): boolean {
  return isSystemAdmin(actor);
}

/**
 * Archiving a resident: administrators (admin or system admin) only. Reading, adding and editing are open to
 * every active signed-in staff member (decision 49).
 */
export function canArchiveResident(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'admin' || actor.role === 'system_admin';
}

/** Adding and removing a group's members and renaming it: its creator, or an admin or system admin (decision 143). */
export function canManageGroup(actor: Actor, group: { createdBy: string | null }): boolean {
  return group.createdBy === actor.id || actor.role === 'admin' || actor.role === 'system_admin';
}

/** Joining the chat of a house one does not work in: admins and system admins (decision 143). */
export function canJoinHouseChat(actor: Pick<Actor, 'role'>): boolean {
  return actor.role === 'admin' || actor.role === 'system_admin';
}

/** Bank and agency staff see residents and handover notes of the houses they work in only (decision 147). */
export function isLimitedToOwnHouses(account: { type: AccountType }): boolean {
  return account.type !== 'employee';
}
