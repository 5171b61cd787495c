import { z } from 'zod';
import { EMAIL_MAX, NameFieldsSchema } from './auth';
import { HouseTagsSchema } from './posts';
import { AccountTypeSchema, RoleSchema, UserTypeSchema } from './roles';

const email = z
  .string({ message: 'Invalid email address' })
  .trim()
  .max(EMAIL_MAX, `Email must be at most ${EMAIL_MAX} characters`)
  .pipe(z.email({ message: 'Invalid email address' }))
  .transform((value) => value.toLowerCase());

/** When an agency or bank worker's access ends (decision 145); null for none. */
const accessEndsAt = z.iso
  .datetime({ offset: true, message: 'accessEndsAt must be a date and time such as 2026-12-01T18:00:00Z' })
  .nullable();

/** POST /api/admin/users: the Add New Staff Member form (docs/behaviour.md, "Administration"). */
export const CreateUserBodySchema = NameFieldsSchema.extend({
  email,
  userType: UserTypeSchema,
  type: AccountTypeSchema.default('employee'),
  accessEndsAt: accessEndsAt.default(null),
});
export type CreateUserBody = z.infer<typeof CreateUserBodySchema>;

/** PATCH /api/admin/users/{id}/edit */
export const EditUserBodySchema = NameFieldsSchema.extend({
  email,
  role: RoleSchema,
  /** Left out: unchanged. */
  type: AccountTypeSchema.optional(),
  /** Left out: unchanged; an admin extends an agency worker's access here. */
  accessEndsAt: accessEndsAt.optional(),
});
export type EditUserBody = z.infer<typeof EditUserBodySchema>;

/** PATCH /api/admin/users/{id}/status */
export const UserStatusBodySchema = z.object({ isActive: z.boolean({ message: 'isActive must be true or false' }) });
export type UserStatusBody = z.infer<typeof UserStatusBodySchema>;

/** PUT /api/admin/users/{id}/role */
export const UserRoleBodySchema = z.object({ role: RoleSchema });
export type UserRoleBody = z.infer<typeof UserRoleBodySchema>;

/** POST /api/admin/users/{id}/approve: approves a pending registration with the role chosen. */
export const ApproveUserBodySchema = z.object({ role: RoleSchema });
export type ApproveUserBody = z.infer<typeof ApproveUserBodySchema>;

/** PUT /api/admin/users/{id}/houses: the houses a staff member works in (any of the ten; none is allowed). */
export const UserHousesBodySchema = z.object({
  houses: z.array(z.unknown(), { message: 'houses must be a list of house names' }).pipe(HouseTagsSchema),
});
export type UserHousesBody = z.infer<typeof UserHousesBodySchema>;

/** One row of GET /api/admin/users. */
export const AdminUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: RoleSchema,
  isAdmin: z.boolean(),
  isMasterAdmin: z.boolean(),
  isActive: z.boolean(),
  profileImageUrl: z.string().nullable(),
  /** True while a registration awaits approval. */
  pendingApproval: z.boolean(),
  /** The role asked for at registration, as the form spelt it. */
  requestedRole: z.string().nullable(),
  /** True while an invited member has not yet chosen a password. */
  invitePending: z.boolean(),
  /** The houses the member works in, in the order of the house list. */
  houses: z.array(z.string()),
  type: AccountTypeSchema,
  /** When the account's access ends (bank and agency staff); null for none. */
  accessEndsAt: z.string().nullable(),
  createdAt: z.string(),
  lastLoginAt: z.string().nullable(),
});
export type AdminUser = z.infer<typeof AdminUserSchema>;
