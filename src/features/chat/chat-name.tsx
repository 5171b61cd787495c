import type { AccountType } from '../../../schema/role-rules';
import { AccountTypeBadge } from '../../components/account-type-badge';

/** A colleague's name in the chat panel, with the Agency or Bank badge beside it as on post cards (decision 147). */
export function ChatName({
  name,
  type,
  className,
}: {
  name: string;
  type: AccountType | null | undefined;
  className: string;
}) {
  return (
    <span className={className}>
      {name}
      <AccountTypeBadge type={type} />
    </span>
  );
}
