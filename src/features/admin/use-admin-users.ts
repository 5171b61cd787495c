import { useEffect, useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import { listErrorMessage, listUsers } from './admin-api';

export type AdminUsersState =
  { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; users: AdminUser[] };

/** GET /api/admin/users once (no retry), plus local updates from the answers of each change. */
export function useAdminUsers() {
  const [state, setState] = useState<AdminUsersState>({ status: 'loading' });

  useEffect(() => {
    let cancelled = false;
    listUsers()
      .then((users) => {
        if (!cancelled) setState({ status: 'ready', users });
      })
      .catch((error: unknown) => {
        if (!cancelled) setState({ status: 'error', message: listErrorMessage(error) });
      });
    return () => {
      cancelled = true;
    };
  }, []);

  const update = (change: (users: AdminUser[]) => AdminUser[]) =>
    setState((s) => (s.status === 'ready' ? { status: 'ready', users: change(s.users) } : s));

  return {
    state,
    added: (user: AdminUser) => update((users) => [...users, user]),
    replaced: (user: AdminUser) => update((users) => users.map((u) => (u.id === user.id ? user : u))),
    removed: (id: string) => update((users) => users.filter((u) => u.id !== id)),
  };
}
