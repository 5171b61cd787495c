import type { AdminUser } from '../../../schema/admin';
import type { CurrentUser } from '../../../schema/auth';
import type { UserRow } from './users.queries';

/** The shape of GET /api/auth/user (issue 2). */
export function toCurrentUser(row: UserRow): CurrentUser {
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

/** A row of the admin user list, with the states the admin page shows. */
export function toAdminUser(row: UserRow): AdminUser {
  return {
    ...toCurrentUser(row),
    pendingApproval: row.pendingApproval,
    requestedRole: row.requestedRole ?? null,
    invitePending: row.passwordHash === null && !row.pendingApproval,
    createdAt: new Date(row.createdAt).toISOString(),
    lastLoginAt: row.lastLoginAt ? new Date(row.lastLoginAt).toISOString() : null,
  };
}
