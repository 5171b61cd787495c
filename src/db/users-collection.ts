import type { RxCollection, RxJsonSchema } from 'rxdb';
import type { Role } from '../../schema/roles';

/** One entry of the local staff directory (spec section 3, User, without the private fields). */
export interface StaffDirectoryEntry {
  id: string;
  firstName: string;
  lastName: string;
  role: Role;
  profileImageUrl: string | null;
  /** Milliseconds since the epoch of the last change the server reported. */
  updatedAt: number;
}

export type UsersCollection = RxCollection<StaffDirectoryEntry>;

export const usersSchema: RxJsonSchema<StaffDirectoryEntry> = {
  title: 'staff directory',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 100 },
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    role: { type: 'string', enum: ['staff', 'admin', 'system_admin'] },
    profileImageUrl: { type: ['string', 'null'] },
    updatedAt: { type: 'number', minimum: 0, maximum: 1e15, multipleOf: 1 },
  },
  required: ['id', 'firstName', 'lastName', 'role', 'profileImageUrl', 'updatedAt'],
  additionalProperties: false,
};
