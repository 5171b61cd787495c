import { ROLES, ROLE_LABELS } from '../../../schema/role-rules';

/** staff / admin / system_admin with their labels, for the inline selector, Edit User and Approve. */
export const ROLE_OPTIONS = ROLES.map((value) => ({ value, label: ROLE_LABELS[value] }));
