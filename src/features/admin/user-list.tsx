import { useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import { Badge } from '../../components/ui/badge';
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs';
import { UserRow } from './user-row';

type Filter = 'all' | 'pending';

interface UserListProps {
  users: AdminUser[];
  selfId: string;
  onChanged: (user: AdminUser) => void;
  onDeleted: (id: string) => void;
}

/** The user list with its "All users" / "Pending approval" filter. */
export function UserList({ users, selfId, onChanged, onDeleted }: UserListProps) {
  const [filter, setFilter] = useState<Filter>('all');
  const pending = users.filter((u) => u.pendingApproval);

  const rows = (list: AdminUser[], empty: string) =>
    list.length === 0 ? (
      <p className="muted empty">{empty}</p>
    ) : (
      <ul className="user-list">
        {list.map((u) => (
          <UserRow key={u.id} user={u} isSelf={u.id === selfId} onChanged={onChanged} onDeleted={onDeleted} />
        ))}
      </ul>
    );

  return (
    <Card>
      <CardHeader>
        <CardTitle>Staff Accounts</CardTitle>
      </CardHeader>
      <CardContent>
        <Tabs value={filter} onValueChange={(v) => setFilter(v === 'pending' ? 'pending' : 'all')}>
          <TabsList aria-label="Filter users">
            <TabsTrigger value="all">
              All users <Badge>{users.length}</Badge>
            </TabsTrigger>
            <TabsTrigger value="pending">
              Pending approval {pending.length > 0 ? <Badge tone="warning">{pending.length}</Badge> : null}
            </TabsTrigger>
          </TabsList>
          <TabsContent value="all">{rows(users, 'No users yet.')}</TabsContent>
          <TabsContent value="pending">{rows(pending, 'No accounts are waiting for approval.')}</TabsContent>
        </Tabs>
      </CardContent>
    </Card>
  );
}
