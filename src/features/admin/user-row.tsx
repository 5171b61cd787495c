import { UserCheck } from 'lucide-react';
import { useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import { displayName, formatDateTime } from '../../../schema/format';
import { ROLE_LABELS, roleLabel, toRole, type Role } from '../../../schema/role-rules';
import { UserAvatar } from '../../components/ui/avatar';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { Select } from '../../components/ui/select';
import { Switch } from '../../components/ui/switch';
import { approveUser, setUserActive, setUserRole } from './admin-api';
import { toastAdminFailure, toastAdminSuccess } from './admin-toasts';
import { DeleteUserDialog } from './delete-user-dialog';
import { EditUserDialog } from './edit-user-dialog';
import { UserHousesDialog } from './user-houses-dialog';
import { ROLE_OPTIONS } from './role-options';
import { EmailAddress } from '../../components/email-address';
import { AccountTypeBadge } from '../../components/account-type-badge';
import { accessEndText } from './access-end';
import { useNow } from './use-now';

function StatusBadge({ user }: { user: AdminUser }) {
  if (user.pendingApproval) return <Badge tone="warning">Pending approval</Badge>;
  if (user.invitePending) return <Badge tone="info">Invitation sent</Badge>;
  return user.isActive ? <Badge tone="success">Active</Badge> : <Badge tone="neutral">Inactive</Badge>;
}

interface UserRowProps {
  user: AdminUser;
  /** The signed-in administrator's own row: every control is disabled (docs/behaviour.md, "Administration"). */
  isSelf: boolean;
  onChanged: (user: AdminUser) => void;
  onDeleted: (id: string) => void;
}

/** One account in the User Management Panel, with its inline controls. */
export function UserRow({ user, isSelf, onChanged, onDeleted }: UserRowProps) {
  const [busy, setBusy] = useState(false);
  const requested = user.requestedRole ? toRole(user.requestedRole) : 'staff';
  const [approveAs, setApproveAs] = useState<Role>(requested);
  const locked = isSelf || busy;
  const now = useNow();
  const accessEnd = accessEndText(user.accessEndsAt, now);

  async function run(action: () => Promise<AdminUser>, success: (saved: AdminUser) => string, failure: string) {
    setBusy(true);
    try {
      const saved = await action();
      onChanged(saved);
      toastAdminSuccess(success(saved));
    } catch (error) {
      toastAdminFailure(failure, error);
    } finally {
      setBusy(false);
    }
  }

  const changeRole = (role: Role) =>
    void run(
      () => setUserRole(user.id, role),
      () => 'User role updated successfully',
      'Failed to update user role',
    );
  const toggleActive = () =>
    void run(
      () => setUserActive(user.id, !user.isActive),
      (saved) => (saved.isActive ? 'User activated successfully' : 'User deactivated successfully'),
      'Failed to update user status',
    );
  const approve = () =>
    void run(
      () => approveUser(user.id, { role: approveAs }),
      () => 'User approved successfully',
      'Failed to approve user',
    );

  return (
    <li className="user-row" data-testid={`user-${user.email}`}>
      <div className="user-main">
        <UserAvatar user={user} size={44} />
        <div className="user-text">
          <p className="user-name">
            {displayName(user)}
            {isSelf ? <span className="muted"> (you)</span> : null}
          </p>
          <p className="user-email">
            <EmailAddress email={user.email} />
          </p>
          {user.pendingApproval ? <p className="user-requested">Requested role: {ROLE_LABELS[requested]}</p> : null}
          {user.houses.length > 0 ? <p className="user-houses">Houses: {user.houses.join(', ')}</p> : null}
          {accessEnd ? <p className="user-access-end">{accessEnd}</p> : null}
          <p className="user-dates">
            Joined {formatDateTime(user.createdAt)}
            {user.lastLoginAt ? ` · Last login ${formatDateTime(user.lastLoginAt)}` : ''}
          </p>
        </div>
        <div className="user-badges">
          <Badge tone={user.role === 'staff' ? 'neutral' : 'brand'}>{roleLabel(user.role)}</Badge>
          <AccountTypeBadge type={user.type} />
          <StatusBadge user={user} />
        </div>
      </div>

      <div className="user-controls">
        {user.pendingApproval ? (
          <div className="control-group">
            <Select
              aria-label="Approve as"
              value={approveAs}
              onValueChange={setApproveAs}
              options={ROLE_OPTIONS}
              disabled={locked}
            />
            <Button size="sm" onClick={approve} disabled={locked}>
              <UserCheck aria-hidden size={14} />
              Approve
            </Button>
          </div>
        ) : (
          <>
            <Select
              aria-label="Role"
              value={user.role}
              onValueChange={changeRole}
              options={ROLE_OPTIONS}
              disabled={locked}
            />
            <div className="control-group switch-group">
              <Switch
                id={`active-${user.id}`}
                checked={user.isActive}
                onCheckedChange={toggleActive}
                disabled={locked}
                aria-label="Active"
              />
              <span className="muted" aria-hidden>
                {user.isActive ? 'Active' : 'Inactive'}
              </span>
            </div>
          </>
        )}
        <EditUserDialog user={user} disabled={locked} onSaved={onChanged} />
        <UserHousesDialog user={user} disabled={locked} onSaved={onChanged} />
        <DeleteUserDialog user={user} disabled={locked} onDeleted={onDeleted} />
      </div>
    </li>
  );
}
