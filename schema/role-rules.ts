/**
 * The roles' names, labels and spellings, apart from their zod schemas (roles.ts) so that the app's first script
 * builds no schema (decision 113).
 */
/** Roles stored on a user (docs/behaviour.md, "Product"). */
export const ROLES = ['staff', 'admin', 'system_admin'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = {
  staff: 'Staff Member',
  admin: 'Administrator',
  system_admin: 'System Administrator',
};

/** Roles the registration form offers; they are only a request, never granted. */
export const REGISTRATION_ROLES = ['staff', 'administrator', 'system_administrator'] as const;
export type RegistrationRole = (typeof REGISTRATION_ROLES)[number];

/** Who employs an account's holder: agency and bank workers' access ends on a date (decision 145). */
export const ACCOUNT_TYPES = ['employee', 'bank', 'agency'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const ACCOUNT_TYPE_LABELS: Record<AccountType, string> = {
  employee: 'Employee',
  bank: 'Bank staff',
  agency: 'Agency staff',
};

/** The small badge beside an agency or bank worker's name in the app (decision 147); employees have none. */
export const ACCOUNT_TYPE_BADGES: Record<Exclude<AccountType, 'employee'>, string> = {
  bank: 'Bank',
  agency: 'Agency',
};

/** User types the Add New Staff Member form offers (docs/behaviour.md, "Administration"). */
export const USER_TYPES = ['staff', 'admin', 'master_admin'] as const;
export type UserType = (typeof USER_TYPES)[number];

export const USER_TYPE_LABELS: Record<UserType, string> = {
  staff: 'Staff Member',
  admin: 'Administrator',
  master_admin: 'System Administrator',
};

const ROLE_ALIASES: Record<string, Role> = {
  staff: 'staff',
  admin: 'admin',
  administrator: 'admin',
  system_admin: 'system_admin',
  system_administrator: 'system_admin',
  master_admin: 'system_admin',
};

/** Maps any role spelling (registration, user type, role) to a stored role (docs/behaviour.md, "Product"). */
export function toRole(value: string): Role {
  return ROLE_ALIASES[value] ?? 'staff';
}

/** Label shown for a role string; unknown strings show as given. */
export function roleLabel(role: string): string {
  return (ROLE_LABELS as Record<string, string>)[role] ?? role;
}
