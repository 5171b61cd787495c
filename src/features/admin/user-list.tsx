import { useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import { ACCOUNT_TYPES, ACCOUNT_TYPE_LABELS, type AccountType } from '../../../schema/role-rules';
import { Badge } from '../../components/ui/badge';
import { Card, CardContent, CardHeader, CardTitle } from '../../components/ui/card';
import { Select } from '../../components/ui/select';
import { Tabs, TabsContent, TabsList, TabsTrigger } from '../../components/ui/tabs';
import { UserRow } from './user-row';

type Filter = 'all' | 'pending';
type TypeFilter = AccountType | 'any';

const TYPE_FILTER_OPTIONS: { value: TypeFilter; label: string }[] = [
  { value: 'any', label: 'All types' },
  ...ACCOUNT_TYPES.map((value) => ({ value, label: ACCOUNT_TYPE_LABELS[value] })),
];

/** The accounts of one type, or all (decision 147). */
export function usersOfType(users: AdminUser[], type: TypeFilter): AdminUser[] {
  return type === 'any' ? users : users.filter((u) => u.type === type);
}

interface UserListProps {
  users: AdminUser[];
  selfId: string;
  onChanged: (user: AdminUser) => void;
  onDeleted: (id: string) => void;
}

/** The user list with its "All users" / "Pending approval" tabs and its filter by type. */
export function UserList({ users, selfId, onChanged, onDeleted }: UserListProps) {
  const [filter, setFilter] = useState<Filter>('all');
  const [type, setType] = useState<TypeFilter>('any');
  const shown = usersOfType(users, type);
  const pending = shown.filter((u) => u.pendingApproval);

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
          <div className="user-filters">
            <TabsList aria-label="Filter users">
              <TabsTrigger value="all">
                All users <Badge>{shown.length}</Badge>
              </TabsTrigger>
              <TabsTrigger value="pending">
                Pending approval {pending.length > 0 ? <Badge tone="warning">{pending.length}</Badge> : null}
              </TabsTrigger>
            </TabsList>
            <Select aria-label="Filter by type" value={type} onValueChange={setType} options={TYPE_FILTER_OPTIONS} />
          </div>
          <TabsContent value="all">
            {rows(shown, type === 'any' ? 'No users yet.' : 'No users of this type.')}
          </TabsContent>
          <TabsContent value="pending">{rows(pending, 'No accounts are waiting for approval.')}</TabsContent>
        </Tabs>
      </CardContent>
    </Card>
  );
}
