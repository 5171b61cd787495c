import { Clock } from 'lucide-react';
import { useState } from 'react';
import { Notice } from '../../components/ui/notice';
import { wasIdleLogout } from './session-marks';

/** The sign-in screens say why the user is there when the inactivity rule ended their session (decision 129). */
export function IdleLogoutNotice() {
  const [idle] = useState(wasIdleLogout);
  if (!idle) return null;
  return (
    <Notice tone="info" role="status" title="Session Expired" icon={<Clock aria-hidden size={20} />}>
      You were logged out after 30 minutes without activity. Sign in again to continue.
    </Notice>
  );
}
