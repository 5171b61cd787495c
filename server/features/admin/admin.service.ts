import { startJob, type Job } from '../../lib/jobs';
import { randomUUID } from 'node:crypto';
import type {
  AdminUser,
  ApproveUserBody,
  CreateUserBody,
  EditUserBody,
  UserHousesBody,
  UserRoleBody,
  UserStatusBody,
} from '../../../schema/admin';
import type { AccountType, Role } from '../../../schema/roles';
import { ROLE_LABELS, toRole } from '../../../schema/roles';
import { baseUrl } from '../../config';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { recordAudit } from '../audit/audit.service';
import { endAllSessions, issueUserToken, spendMailedLinks } from '../auth/auth.service';
import { removeSecondFactors } from '../auth/two-factor.service';
import { houseChatAccessChanged, houseChatMembersChanged, releaseChatParticipant } from '../chat/chat.service';
import { queueMail } from '../mail/mail.service';
import { housesByUser, setUserHouses } from '../houses/houses.service';
import { handoverAccessChanged } from '../handovers/handovers.service';
import { residentAccessChanged } from '../residents/residents.service';
import { removeSubscriptionsOf } from '../push/push.service';
import {
  countOtherActiveSystemAdmins,
  deleteUserRow,
  findUserByEmail,
  findUserById,
  insertUser,
  listAccessEnded,
  listUsers,
  updateUser,
  type UserRow,
} from '../users/users.queries';
import { releaseAuthorContent } from '../posts/posts.service';
import { directoryChanged, toAdminUser } from '../users/users.service';
import { inTransaction } from '../../db/client';
import { claimAccessEnded } from './admin.queries';

const LAST_ADMIN = 'There must always be at least one active System Administrator.';
const DAY_MS = 86_400_000;

/**
 * The access end an account may have (decision 145): agency staff must have one within AGENCY_ACCESS_MAX_DAYS, bank
 * staff may within BANK_ACCESS_MAX_DAYS, employees have none; it lies ahead. Answers it in milliseconds.
 */
function checkedAccessEnd(deps: AppDeps, type: AccountType, accessEndsAt: string | null): number | null {
  const end = accessEndsAt === null ? null : Date.parse(accessEndsAt);
  if (type === 'employee') {
    if (end !== null) badRequest('Only bank and agency staff have an access end date');
    return null;
  }
  const days = deps.config.accessMaxDays[type];
  if (end === null) {
    if (type === 'agency') badRequest(`Agency access must end within ${days} days`);
    return null;
  }
  if (end <= deps.now()) badRequest('The access end date must be in the future');
  if (end > deps.now() + days * DAY_MS) {
    badRequest(`${type === 'agency' ? 'Agency' : 'Bank'} access must end within ${days} days`);
  }
  return end;
}

/** Every account with its houses, for the admin page (system administrators only; the route checks). */
export async function listStaff(deps: AppDeps): Promise<AdminUser[]> {
  const houses = await housesByUser(deps);
  return (await listUsers(deps.db)).map((row) => toAdminUser(row, houses.get(row.id) ?? []));
}

async function loadTarget(deps: AppDeps, id: string): Promise<UserRow> {
  return (await findUserById(deps.db, id)) ?? notFound('User not found');
}

/** One account as the admin list shows it, houses included. */
async function adminView(deps: AppDeps, id: string): Promise<AdminUser> {
  return toAdminUser(await loadTarget(deps, id), (await housesByUser(deps, [id])).get(id) ?? []);
}

/**
 * Admins cannot change their own role, status or record, nor delete themselves (docs/behaviour.md, "Administration").
 */
function refuseSelf(actor: SessionUser, target: UserRow, what: string): void {
  if (actor.id === target.id) forbidden(`You cannot ${what} your own account`);
}

/** Refuses a change that would leave no active System Administrator. */
async function keepOneSystemAdmin(
  deps: AppDeps,
  target: UserRow,
  after: { role: Role; isActive: boolean } | null,
): Promise<void> {
  const wasLive = target.role === 'system_admin' && target.isActive;
  const staysLive = after !== null && after.role === 'system_admin' && after.isActive;
  if (wasLive && !staysLive && (await countOtherActiveSystemAdmins(deps.db, target.id)) === 0) conflict(LAST_ADMIN);
}

async function audit(
  deps: AppDeps,
  actor: SessionUser,
  meta: RequestMeta,
  action: string,
  id: string,
  details?: object,
) {
  await recordAudit(deps.db, {
    actor,
    action,
    ip: meta.ip,
    target: { type: 'user', id },
    details: details as Record<string, unknown> | undefined,
    at: deps.now(),
  });
}

/**
 * A change of role, or of an admin's account type, can open or close every house's handover notes to the member
 * (decisions 138, 151).
 */
async function roleChanged(
  deps: AppDeps,
  target: UserRow,
  role: Role,
  type: AccountType = target.accountType,
): Promise<void> {
  if (role === target.role && type === target.accountType) return;
  const houses = (await housesByUser(deps, [target.id])).get(target.id) ?? [];
  await handoverAccessChanged(
    deps,
    target.id,
    { role: target.role, type: target.accountType, houses },
    { role, type, houses },
  );
  if (role !== target.role)
    await houseChatAccessChanged(deps, target.id, { role: target.role, houses }, { role, houses });
}

async function checkEmailFree(deps: AppDeps, email: string, exceptId?: string): Promise<void> {
  const other = await findUserByEmail(deps.db, email);
  if (other && other.id !== exceptId) conflict('A user with this email already exists');
}

/** Adds a staff member and e-mails them an invitation link to choose their password (valid 7 days). */
export async function createStaffMember(
  deps: AppDeps,
  actor: SessionUser,
  body: CreateUserBody,
  meta: RequestMeta,
): Promise<AdminUser> {
  await checkEmailFree(deps, body.email);
  const accessEndsAt = checkedAccessEnd(deps, body.type, body.accessEndsAt);
  const id = randomUUID();
  const at = deps.now();
  const role = toRole(body.userType);
  // The account, its invitation and the mail that carries it commit together (decision 124).
  await inTransaction(deps, async (deps) => {
    await insertUser(deps.db, {
      id,
      email: body.email,
      passwordHash: null,
      firstName: body.firstName,
      lastName: body.lastName,
      role,
      isActive: true,
      pendingApproval: false,
      accountType: body.type,
      accessEndsAt,
      createdAt: at,
      updatedAt: at,
    });
    const link = await issueUserToken(deps, id, 'invite');
    await queueMail(deps, {
      to: body.email,
      subject: `You have been invited to ${deps.config.orgName} Staff Portal`,
      link,
      text:
        `Hello ${body.firstName},\n\n${actor.firstName} ${actor.lastName} has created a Staff Portal account for you ` +
        `as ${ROLE_LABELS[role]}. Open this link within 7 days to choose your password:\n\n${link}\n\n` +
        `Then sign in at ${baseUrl(deps.config)}/login with this e-mail address.`,
    });
  });
  directoryChanged(deps);
  await audit(deps, actor, meta, 'admin.user_created', id, {
    ...{ email: body.email, role, type: body.type },
    ...(accessEndsAt === null ? {} : { accessEndsAt: new Date(accessEndsAt).toISOString() }),
  });
  return adminView(deps, id);
}

/** Changes a member's name, e-mail and role. */
export async function editStaffMember(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: EditUserBody,
  meta: RequestMeta,
): Promise<AdminUser> {
  const target = await loadTarget(deps, id);
  refuseSelf(actor, target, 'edit');
  await checkEmailFree(deps, body.email, id);
  await keepOneSystemAdmin(deps, target, { role: body.role, isActive: target.isActive });
  const type = body.type ?? target.accountType;
  const currentEnd = target.accessEndsAt === null ? null : new Date(target.accessEndsAt).toISOString();
  // An unchanged end already past is the server's to act on (expireAccounts), not a reason to refuse the edit.
  const keepsEnd = body.accessEndsAt === undefined && type === target.accountType;
  const given = body.accessEndsAt === undefined ? (type === 'employee' ? null : currentEnd) : body.accessEndsAt;
  const accessEndsAt = keepsEnd ? target.accessEndsAt : checkedAccessEnd(deps, type, given);
  const { email, firstName, lastName, role } = body;
  await inTransaction(deps, async (deps) => {
    await updateUser(deps.db, id, {
      ...{ email, firstName, lastName, role },
      ...{ accountType: type, accessEndsAt, updatedAt: deps.now() },
    });
    // A link mailed to the old address must not set the password of the account at the new one.
    if (body.email !== target.email) await spendMailedLinks(deps, id);
    await roleChanged(deps, target, body.role, type);
    const houses = (await housesByUser(deps, [id])).get(id) ?? [];
    await residentAccessChanged(deps, { type: target.accountType, houses }, { type, houses });
  });
  directoryChanged(deps);
  await audit(deps, actor, meta, 'admin.user_updated', id, {
    changed: [
      ...(['email', 'firstName', 'lastName', 'role'] as const).filter((k) => target[k] !== body[k]),
      ...(type === target.accountType ? [] : ['type']),
      ...(accessEndsAt === target.accessEndsAt ? [] : ['accessEndsAt']),
    ],
  });
  return adminView(deps, id);
}

/** Activates or deactivates a member; deactivation ends their sessions at once. */
export async function setStaffStatus(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: UserStatusBody,
  meta: RequestMeta,
): Promise<AdminUser> {
  const target = await loadTarget(deps, id);
  refuseSelf(actor, target, 'change the status of');
  await keepOneSystemAdmin(deps, target, { role: target.role, isActive: body.isActive });
  await updateUser(deps.db, id, { isActive: body.isActive, pendingApproval: false, updatedAt: deps.now() });
  // House chats' members are the house's live accounts (decision 143): the others pull the new member list.
  await houseChatMembersChanged(deps, id, (await housesByUser(deps, [id])).get(id) ?? []);
  if (!body.isActive) await cutOff(deps, id);
  directoryChanged(deps);
  await audit(deps, actor, meta, body.isActive ? 'admin.user_activated' : 'admin.user_deactivated', id);
  return adminView(deps, id);
}

/**
 * Ends a deactivated member's sessions and live streams, spends their mailed links and forgets their push subscriptions;
 * at an access end their devices are told so (decision 151).
 */
async function cutOff(deps: AppDeps, id: string, reason?: 'access_ended'): Promise<void> {
  await endAllSessions(deps, id, reason);
  await spendMailedLinks(deps, id);
  await removeSubscriptionsOf(deps, id);
}

/**
 * Deactivates every active account whose access end has come (decision 145), as an admin's deactivation does, each
 * audited as the server's; answers how many. Each account is claimed by its deactivation, so of two servers running
 * at once (the job's lock is lost with its connection) only the one that deactivated it goes on.
 */
export async function expireAccounts(deps: AppDeps): Promise<number> {
  const at = deps.now();
  let ended = 0;
  for (const target of await listAccessEnded(deps.db, at)) {
    if (!(await claimAccessEnded(deps.db, target.id, at))) continue;
    ended += 1;
    await houseChatMembersChanged(deps, target.id, (await housesByUser(deps, [target.id])).get(target.id) ?? []);
    await cutOff(deps, target.id, 'access_ended');
    await recordAudit(deps.db, {
      actor: { id: null, email: null },
      action: 'user.access_expired',
      ip: 'server',
      target: { type: 'user', id: target.id },
      details: { type: target.accountType, accessEndsAt: new Date(target.accessEndsAt!).toISOString() },
      at,
    });
  }
  if (ended > 0) directoryChanged(deps);
  return ended;
}

/** The access expiry of the server process: checks every `everyMs` (a minute); `check` runs one at once (tests). */
export const startAccessExpiry = (deps: AppDeps, everyMs: number): Job =>
  startJob(deps, 'Ending expired access', everyMs, () => expireAccounts(deps));

/** Changes a member's role. */
export async function setStaffRole(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: UserRoleBody,
  meta: RequestMeta,
): Promise<AdminUser> {
  const target = await loadTarget(deps, id);
  refuseSelf(actor, target, 'change the role of');
  await keepOneSystemAdmin(deps, target, { role: body.role, isActive: target.isActive });
  await inTransaction(deps, async (deps) => {
    await updateUser(deps.db, id, { role: body.role, updatedAt: deps.now() });
    await roleChanged(deps, target, body.role);
  });
  directoryChanged(deps);
  await audit(deps, actor, meta, 'admin.user_role_changed', id, { from: target.role, to: body.role });
  return adminView(deps, id);
}

/** Approves a pending registration with the chosen role and activates it. */
export async function approveRegistration(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: ApproveUserBody,
  meta: RequestMeta,
): Promise<AdminUser> {
  const target = await loadTarget(deps, id);
  if (!target.pendingApproval) conflict('This account is not awaiting approval');
  await inTransaction(deps, async (deps) => {
    await updateUser(deps.db, id, { role: body.role, isActive: true, pendingApproval: false, updatedAt: deps.now() });
    await roleChanged(deps, target, body.role);
    await houseChatMembersChanged(deps, id, (await housesByUser(deps, [id])).get(id) ?? []);
  });
  directoryChanged(deps);
  await audit(deps, actor, meta, 'admin.user_approved', id, { requestedRole: target.requestedRole, role: body.role });
  await queueMail(deps, {
    to: target.email,
    subject: 'Your Staff Portal account has been approved',
    text:
      `Hello ${target.firstName},\n\nYour Staff Portal account has been approved as ${ROLE_LABELS[body.role]}. ` +
      `You can now sign in at ${baseUrl(deps.config)}/login.`,
  });
  return adminView(deps, id);
}

/**
 * Deletes an account and its personal data; what they wrote stays, attributed to "Deleted user", their
 * reactions go, and synced clients get the change and a directory tombstone.
 */
export async function deleteStaffMember(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  meta: RequestMeta,
): Promise<void> {
  const target = await loadTarget(deps, id);
  refuseSelf(actor, target, 'delete');
  await keepOneSystemAdmin(deps, target, null);
  await endAllSessions(deps, id);
  // Push subscriptions, houses and alert lists go with the row (foreign keys); chat stays for the other side.
  await inTransaction(deps, async (deps) => {
    await releaseAuthorContent(deps, id);
    await releaseChatParticipant(deps, id);
    await deleteUserRow(deps.db, id);
  });
  directoryChanged(deps);
  await audit(deps, actor, meta, 'admin.user_deleted', id, { email: target.email });
}

/** Sets the houses a member works in (any of the ten, or none); urgent posts can be addressed to houses. */
export async function setStaffHouses(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: UserHousesBody,
  meta: RequestMeta,
): Promise<AdminUser> {
  const target = await loadTarget(deps, id);
  const before = (await housesByUser(deps, [id])).get(id) ?? [];
  const houses = await inTransaction(deps, async (deps) => {
    const after = await setUserHouses(deps, target.id, body.houses);
    const reader = { role: target.role, type: target.accountType };
    await handoverAccessChanged(deps, target.id, { ...reader, houses: before }, { ...reader, houses: after });
    await residentAccessChanged(
      deps,
      { type: target.accountType, houses: before },
      { type: target.accountType, houses: after },
    );
    await houseChatAccessChanged(
      deps,
      target.id,
      { role: target.role, houses: before },
      { role: target.role, houses: after },
    );
    return after;
  });
  await audit(deps, actor, meta, 'admin.user_houses_changed', id, { from: before, to: houses });
  return adminView(deps, id);
}

/**
 * "Reset two-factor sign-in": removes the user's authenticator app, recovery codes and passkeys and ends their
 * sessions, so whoever holds a lost phone or a session is out; the user is told by e-mail (decision 148).
 */
export async function resetStaffTwoFactor(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  meta: RequestMeta,
): Promise<AdminUser> {
  const target = await loadTarget(deps, id);
  refuseSelf(actor, target, 'reset two-factor sign-in of');
  await inTransaction(deps, async (deps) => {
    await removeSecondFactors(deps, target.id);
    await queueMail(deps, {
      to: target.email,
      subject: 'Your Staff Portal two-factor sign-in was reset',
      text:
        `Hello ${target.firstName},\n\n${actor.firstName} ${actor.lastName} has reset the two-factor sign-in of your ` +
        `Staff Portal account: your authenticator app, recovery codes and passkeys no longer sign you in, and you ` +
        `have been signed out everywhere. Sign in at ${baseUrl(deps.config)}/login with your password` +
        (target.role === 'staff' ? '.' : ' and set up two-factor sign-in again.') +
        `\n\nIf you did not ask for this, tell your administrator at once.`,
    });
    await audit(deps, actor, meta, 'admin.two_factor_reset', target.id);
  });
  await endAllSessions(deps, target.id);
  return adminView(deps, id);
}
