import { Clock, UserX } from 'lucide-react';
import { useState } from 'react';
import { MESSAGES } from '../../../schema/auth-rules';
import { Notice } from '../../components/ui/notice';
import { wasAccessEnded, wasIdleLogout } from './session-marks';

/**
 * The sign-in screens say why the user is there when the inactivity rule ended their session (decision 129), or the
 * server ended it at the account's access end (decision 151).
 */
export function IdleLogoutNotice() {
  const [accessEnded] = useState(wasAccessEnded);
  const [idle] = useState(wasIdleLogout);
  if (accessEnded) {
    return (
      <Notice tone="warning" role="status" title="Access Ended" icon={<UserX aria-hidden size={20} />}>
        {MESSAGES.accessEnded}
      </Notice>
    );
  }
  if (!idle) return null;
  return (
    <Notice tone="info" role="status" title="Session Expired" icon={<Clock aria-hidden size={20} />}>
      You were logged out after 30 minutes without activity. Sign in again to continue.
    </Notice>
  );
}
