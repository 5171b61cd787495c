import { z } from 'zod';
import {
  AdminUserSchema,
  type AdminUser,
  type ApproveUserBody,
  type CreateUserBody,
  type EditUserBody,
} from '../../../schema/admin';
import type { Role } from '../../../schema/role-rules';
import { ApiError, api } from '../../lib/api';

/** The user list must be an array (docs/api-auth-admin.md), of rows the schema accepts. */
export async function listUsers(): Promise<AdminUser[]> {
  const answer = await api.get('/api/admin/users');
  const parsed = z.array(AdminUserSchema).safeParse(answer);
  if (!Array.isArray(answer) || !parsed.success) throw new Error('Invalid data format received');
  return parsed.data;
}

/** "HTTP {status}: {statusText}" for a failed list load (docs/behaviour.md, "Administration"). */
export function listErrorMessage(error: unknown): string {
  if (error instanceof ApiError) return `HTTP ${error.status}: ${error.statusText || error.serverMessage || ''}`.trim();
  return error instanceof Error ? error.message : String(error);
}

const user = (answer: unknown) => AdminUserSchema.parse(answer);
const path = (id: string) => `/api/admin/users/${encodeURIComponent(id)}`;

export const createUser = async (body: CreateUserBody) => user(await api.post('/api/admin/users', body));
export const editUser = async (id: string, body: EditUserBody) => user(await api.patch(`${path(id)}/edit`, body));
export const setUserActive = async (id: string, isActive: boolean) =>
  user(await api.patch(`${path(id)}/status`, { isActive }));
export const setUserRole = async (id: string, role: Role) => user(await api.put(`${path(id)}/role`, { role }));
export const setUserHouses = async (id: string, houses: string[]) =>
  user(await api.put(`${path(id)}/houses`, { houses }));
export const approveUser = async (id: string, body: ApproveUserBody) =>
  user(await api.post(`${path(id)}/approve`, body));
export const resetTwoFactor = async (id: string) => user(await api.post(`${path(id)}/two-factor/reset`, {}));
export const deleteUser = async (id: string): Promise<void> => {
  await api.delete(path(id));
};
