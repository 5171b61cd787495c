import type { AdminUser } from '../../../schema/admin';
import type { CurrentUser } from '../../../schema/auth';
import type { AccountType } from '../../../schema/role-rules';
import type { DirectoryUserDoc } from '../../../schema/sync';
import { uploadIdFromUrl } from '../../../schema/uploads';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { notFound } from '../../lib/errors';
import { checkProfilePicture } from '../../lib/files';
import { recordAudit } from '../audit/audit.service';
import { housesByUser } from '../houses/houses.service';
import { discardOwnUpload, saveFiles } from '../uploads/uploads.service';
import {
  findAccountCreatedAt,
  findUserById,
  listDeletedUsersSince,
  listDirectorySince,
  updateUser,
  type CurrentUserRow,
  type UserRow,
} from './users.queries';
import { inTransaction } from '../../db/client';

/**
 * The earliest time this user can have written anything: their account's creation. The floor of a written
 * time that answers nothing else (a post, a message; decision 119).
 */
export async function accountCreatedAt(deps: AppDeps, userId: string): Promise<number> {
  return (await findAccountCreatedAt(deps.db, userId)) ?? 0;
}

/** An active account as a session sees it, or null (gone, deactivated). */
export async function findSessionUserById(deps: AppDeps, id: string): Promise<CurrentUser | null> {
  const row = await findUserById(deps.db, id);
  return row?.isActive ? toCurrentUser(row) : null;
}

/** The shape of GET /api/auth/user. */
export function toCurrentUser(row: CurrentUserRow): CurrentUser {
  return {
    id: row.id,
    email: row.email,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    isAdmin: row.role === 'admin' || row.role === 'system_admin',
    isMasterAdmin: row.role === 'system_admin',
    isActive: row.isActive,
    profileImageUrl: row.profileImageUrl ?? null,
  };
}

/** A row of the admin user list, with the states the admin page shows and the member's houses. */
export function toAdminUser(row: UserRow, houses: string[] = []): AdminUser {
  return {
    ...toCurrentUser(row),
    pendingApproval: row.pendingApproval,
    requestedRole: row.requestedRole ?? null,
    invitePending: row.passwordHash === null && !row.pendingApproval,
    houses,
    type: row.accountType,
    accessEndsAt: row.accessEndsAt === null ? null : new Date(row.accessEndsAt).toISOString(),
    createdAt: new Date(row.createdAt).toISOString(),
    lastLoginAt: row.lastLoginAt ? new Date(row.lastLoginAt).toISOString() : null,
  };
}

/** An entry of the synced staff directory: what every colleague may see, no e-mail. */
export function toDirectoryUserDoc(row: UserRow, houses: string[] = []): DirectoryUserDoc {
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    role: row.role,
    profileImageUrl: row.profileImageUrl ?? null,
    isActive: row.isActive,
    houses,
    type: row.accountType,
    updatedAt: row.updatedAt,
    _deleted: false,
  };
}

/** A deleted account as the directory sends it: a tombstone without personal data. */
export function deletedDirectoryUserDoc(id: string): DirectoryUserDoc {
  return {
    id,
    firstName: 'Deleted',
    lastName: 'user',
    role: 'staff',
    profileImageUrl: null,
    isActive: false,
    houses: [],
    type: 'employee',
    updatedAt: 0,
    _deleted: true,
  };
}

/** Tells live clients the staff directory changed (an account added, edited, (de)activated or deleted). */
export function directoryChanged(deps: AppDeps): void {
  deps.hub.notify('users');
}

/**
 * Directory entries changed after a checkpoint: every account but pending registrations, and a tombstone for
 * each deleted account; two sources merged in (server_seq, id) order.
 */
export async function listDirectoryDocsSince(deps: AppDeps, seq: number, id: string, limit: number) {
  const rows = await listDirectorySince(deps.db, seq, id, limit);
  const houses = await housesByUser(
    deps,
    rows.map((row) => row.id),
  );
  const live = rows.map((row) => ({ seq: row.serverSeq, doc: toDirectoryUserDoc(row, houses.get(row.id) ?? []) }));
  const gone = (await listDeletedUsersSince(deps.db, seq, id, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: deletedDirectoryUserDoc(row.id),
  }));
  return [...live, ...gone]
    .sort((a, b) => a.seq - b.seq || (a.doc.id < b.doc.id ? -1 : a.doc.id > b.doc.id ? 1 : 0))
    .slice(0, limit);
}

/**
 * POST /api/auth/profile-picture: stores the checked, re-encoded square picture as the user's upload, points
 * the account at it (the directory change reaches every client through sync), removes the picture it
 * replaces, and audits the change. Answers the current user with the new profileImageUrl.
 */
export async function changeProfilePicture(
  deps: AppDeps,
  actor: SessionUser,
  file: File,
  meta: RequestMeta,
): Promise<CurrentUser> {
  const [upload] = await saveFiles(deps, actor, [await checkProfilePicture(file)]);
  const previous = (await findUserById(deps.db, actor.id))?.profileImageUrl ?? null;
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    await updateUser(deps.db, actor.id, { profileImageUrl: upload.url, updatedAt: at });
    await recordAudit(deps.db, {
      actor,
      action: 'auth.profile_picture_changed',
      ip: meta.ip,
      target: { type: 'user', id: actor.id },
      details: { upload: upload.id },
      at,
    });
  });
  directoryChanged(deps);
  const previousId = previous ? uploadIdFromUrl(previous) : null;
  if (previousId && previousId !== upload.id) await discardOwnUpload(deps, actor, previousId);
  return toCurrentUser((await findUserById(deps.db, actor.id)) ?? notFound('User not found'));
}

/** An account's type (decision 145); a deleted account counts as an employee, as it sees nothing anyway. */
export async function accountTypeOf(deps: AppDeps, userId: string): Promise<AccountType> {
  return (await findUserById(deps.db, userId))?.accountType ?? 'employee';
}
