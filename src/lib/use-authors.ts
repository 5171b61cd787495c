import { useMemo } from 'react';
import { map } from 'rxjs';
import type { CurrentUser } from '../../schema/auth';
import { DELETED_AUTHOR } from '../../schema/post-rules';
import { displayName } from '../../schema/format';
import type { AccountType, Role } from '../../schema/role-rules';
import type { DirectoryUserLocal } from '../db/collections';
import type { LocalStore } from '../db/local-store-state';
import { useObservable } from './use-observable';

/** How an author is shown: from the staff directory, or "Deleted user" when unknown (decision 9). */
export interface AuthorView {
  id: string | null;
  firstName: string;
  lastName: string;
  role: Role | null;
  profileImageUrl: string | null;
  name: string;
  /** Bank and agency staff carry a badge beside their name (decision 147); null when unknown. */
  type: AccountType | null;
}

export const DELETED_AUTHOR_VIEW: AuthorView = {
  id: null,
  ...DELETED_AUTHOR,
  role: null,
  profileImageUrl: null,
  name: displayName(DELETED_AUTHOR),
  type: null,
};

export type AuthorLookup = (authorId: string | null) => AuthorView;

const NO_USERS: DirectoryUserLocal[] = [];

function toAuthorView(
  user: Pick<DirectoryUserLocal, 'id' | 'firstName' | 'lastName' | 'role' | 'profileImageUrl'> & { type?: AccountType },
): AuthorView {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    profileImageUrl: user.profileImageUrl,
    name: displayName(user),
    type: user.type ?? null,
  };
}

/**
 * Authors by id from the staff directory (or the preview's, until the directory is stored); the signed-in user is
 * known even before the directory arrives.
 */
export function useAuthors(
  store: LocalStore | null,
  me: CurrentUser,
  previewUsers: readonly DirectoryUserLocal[] = NO_USERS,
): AuthorLookup {
  const users$ = useMemo(
    () => store?.db.users.find().$.pipe(map((docs) => docs.map((doc): DirectoryUserLocal => doc._data))) ?? null,
    [store],
  );
  const { value: stored } = useObservable(users$, NO_USERS);
  const users = stored.length > 0 ? stored : previewUsers;
  return useMemo(() => {
    const byId = new Map(users.map((user) => [user.id, toAuthorView(user)]));
    if (!byId.has(me.id)) byId.set(me.id, toAuthorView(me));
    return (authorId) => (authorId ? byId.get(authorId) : undefined) ?? DELETED_AUTHOR_VIEW;
  }, [users, me]);
}
