import type { AdminUser } from '../../../schema/admin';
import type { AccountType } from '../../../schema/role-rules';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** "Access ends in N days" / "in N hours" / "Access ended" for the user list (decision 147); null when none. */
export function accessEndText(accessEndsAt: string | null, now: number): string | null {
  if (accessEndsAt === null) return null;
  const left = Date.parse(accessEndsAt) - now;
  if (Number.isNaN(left)) return null;
  if (left <= 0) return 'Access ended';
  const hours = Math.ceil(left / HOUR);
  if (left < 2 * DAY) return `Access ends in ${hours} ${hours === 1 ? 'hour' : 'hours'}`;
  return `Access ends in ${Math.floor(left / DAY)} days`;
}

/** The value of a datetime-local input for a stored end, in the device's time zone. */
export function toLocalInput(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value as the ISO time the API takes; empty is none, an unreadable one is left for zod to name. */
export function fromLocalInput(value: string): string | null {
  if (value === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** The end to send for a type: employees have none (decision 145). */
export function accessEndFor(type: AccountType, local: string): string | null {
  return type === 'employee' ? null : fromLocalInput(local);
}

/** The end is sent only when changed, so saving a renamed worker whose end has passed is not refused (decision 145). */
export function editedAccessEnd(user: AdminUser, type: AccountType, local: string): { accessEndsAt?: string | null } {
  const unchanged = type === user.type && local === toLocalInput(user.accessEndsAt);
  return unchanged ? {} : { accessEndsAt: accessEndFor(type, local) };
}
