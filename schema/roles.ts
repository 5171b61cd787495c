import { z } from 'zod';
import { ACCOUNT_TYPES, REGISTRATION_ROLES, ROLES, USER_TYPES } from './role-rules';

export * from './role-rules';

export const RoleSchema = z.enum(ROLES, { message: 'Role must be staff, admin or system_admin' });
export const RegistrationRoleSchema = z.enum(REGISTRATION_ROLES, {
  message: 'Role must be staff, administrator or system_administrator',
});
export const AccountTypeSchema = z.enum(ACCOUNT_TYPES, { message: 'Type must be employee, bank or agency' });
export const UserTypeSchema = z.enum(USER_TYPES, { message: 'User type must be staff, admin or master_admin' });
