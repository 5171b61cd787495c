import { BellRing } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { Switch } from '../../components/ui/switch';
import { cx } from '../../lib/cx';
import { currentSubscription, disablePush, enablePush, isPushSupported } from './push';
import './push.css';

type Permission = NotificationPermission | 'unsupported';

const PERMISSION_LABELS: Record<Permission, string> = {
  default: 'Not Set',
  granted: 'Granted',
  denied: 'Denied',
  unsupported: 'Not supported',
};

/** The push state (docs/behaviour.md, "Notifications"): supported, permission, subscribed. */
export function usePushState(): {
  permission: Permission;
  subscribed: boolean;
  refresh: () => void;
} {
  const [permission, setPermission] = useState<Permission>(() =>
    isPushSupported() ? Notification.permission : 'unsupported',
  );
  const [subscribed, setSubscribed] = useState(false);
  const refresh = useCallback(() => {
    if (!isPushSupported()) return;
    void currentSubscription().then((subscription) => {
      setPermission(Notification.permission);
      setSubscribed(subscription !== null);
    });
  }, []);
  useEffect(refresh, [refresh]);
  return { permission, subscribed, refresh };
}

/**
 * The push-notification settings card (docs/behaviour.md, "Notifications"): permission state, the on/off toggle, and a
 * hint when the browser blocks notifications (the toggle is disabled then).
 */
export function PushSettings({ user, compact = false }: { user: CurrentUser; compact?: boolean }) {
  const { permission, subscribed, refresh } = usePushState();
  const [busy, setBusy] = useState(false);
  const toggle = async (on: boolean) => {
    setBusy(true);
    await (on ? enablePush(user.id) : disablePush());
    setBusy(false);
    refresh();
  };
  const id = compact ? 'push-toggle-menu' : 'push-toggle';
  return (
    <section className={cx('push-settings', compact && 'push-settings-compact')} aria-labelledby={`${id}-label`}>
      <div className="push-settings-row">
        <BellRing aria-hidden size={18} />
        <span id={`${id}-label`} className="push-settings-title">
          Push Notifications
        </span>
        <Switch
          id={id}
          aria-labelledby={`${id}-label`}
          checked={subscribed && permission === 'granted'}
          onCheckedChange={(on) => void toggle(on)}
          disabled={busy || permission === 'denied' || permission === 'unsupported'}
        />
      </div>
      <p className="push-settings-status muted">
        {permission === 'unsupported'
          ? 'Push notifications are not supported in this browser.'
          : `Permission: ${PERMISSION_LABELS[permission]}`}
      </p>
      {permission === 'denied' ? (
        <p className="push-settings-hint" role="note">
          Notifications are blocked in your browser. Allow them in the site settings to turn them on.
        </p>
      ) : null}
    </section>
  );
}
