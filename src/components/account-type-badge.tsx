import { ACCOUNT_TYPE_BADGES, ACCOUNT_TYPE_LABELS, type AccountType } from '../../schema/role-rules';
import { Badge } from './ui/badge';

/** "Agency" or "Bank" beside a name (decision 147); nothing for an employee or an unknown type. */
export function AccountTypeBadge({ type }: { type: AccountType | null | undefined }) {
  if (type !== 'agency' && type !== 'bank') return null;
  return (
    <Badge tone="info" className="account-type-badge" title={ACCOUNT_TYPE_LABELS[type]}>
      {ACCOUNT_TYPE_BADGES[type]}
    </Badge>
  );
}
