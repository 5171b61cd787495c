import { AlertTriangle, Bell, Megaphone, MessageCircle } from 'lucide-react';
import { useAtomValue } from 'jotai';
import { useEffect, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '../../components/ui/dialog';
import { useFirstSyncOver, useLocalStore } from '../../db/local-store-state';
import { alertOpenAtom } from '../../lib/alert-open';
import { appStore } from '../../lib/store';
import { enablePush, isPushSupported } from './push';
import './push.css';

/** localStorage flag: the prompt has been shown once on this browser (docs/behaviour.md, "Notifications"). */
export const PUSH_PROMPT_SEEN_KEY = 'hasSeenPushPrompt';

/**
 * "Enable Push Notifications": once, 2 s after load, when supported, signed in and not yet seen
 * (docs/behaviour.md, "Notifications"). A sheet at the foot of the screen: the feed that just loaded stays in view
 * behind it (decision 104). It waits for the first sync, so that an alert waiting for the user is known, and while an
 * emergency alert is open; it steps aside if one opens, and counts as seen once it has shown (decisions 128 and 163).
 */
export function PushPrompt({ user }: { user: CurrentUser }) {
  const [due, setDue] = useState(false);
  const alertOpen = useAtomValue(alertOpenAtom);
  // Until the first sync is over, an alert waiting for the user may not be on the device yet (decision 163).
  const alertsKnown = useFirstSyncOver(useLocalStore(), 'all');
  const open = due && alertsKnown && !alertOpen;
  useEffect(() => {
    // Not when the browser has already decided: a blocked permission cannot be asked for again.
    if (!isPushSupported() || Notification.permission === 'denied' || localStorage.getItem(PUSH_PROMPT_SEEN_KEY)) {
      return;
    }
    const timer = setTimeout(() => setDue(true), LIMITS.pushPromptDelayMs);
    return () => clearTimeout(timer);
  }, []);
  useEffect(() => {
    if (open) localStorage.setItem(PUSH_PROMPT_SEEN_KEY, 'true');
  }, [open]);
  return (
    <Dialog open={open} onOpenChange={setDue}>
      <DialogContent
        sheet
        // Stepping aside for an alert, the focus stays on the alert's button rather than going back to the page.
        onCloseAutoFocus={(event) => {
          if (appStore.get(alertOpenAtom)) event.preventDefault();
        }}
      >
        <DialogTitle>
          <Bell aria-hidden size={20} /> Enable Push Notifications
        </DialogTitle>
        <DialogDescription>
          Stay informed even when Staff Portal is closed. You will be notified about:
        </DialogDescription>
        <ul className="push-prompt-list">
          <li>
            <MessageCircle aria-hidden size={16} /> Chat messages
          </li>
          <li>
            <AlertTriangle aria-hidden size={16} /> Urgent posts and emergency alerts
          </li>
          <li>
            <Megaphone aria-hidden size={16} /> Important company announcements
          </li>
        </ul>
        <DialogFooter>
          <Button variant="outline" onClick={() => setDue(false)}>
            Not Now
          </Button>
          <Button
            onClick={() => {
              setDue(false);
              void enablePush(user.id);
            }}
          >
            Enable Notifications
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
