import { AlertTriangle, Bell, Megaphone, MessageCircle } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '../../components/ui/dialog';
import { enablePush, isPushSupported } from './push';
import './push.css';

/** localStorage flag: the prompt has been shown once on this browser (spec section 4). */
export const PUSH_PROMPT_SEEN_KEY = 'hasSeenPushPrompt';

/**
 * "Enable Push Notifications": once, 2 s after load, when supported, signed in and not yet seen (spec section 4).
 * A sheet at the foot of the screen: the feed that just loaded stays in view behind it (decision 104).
 */
export function PushPrompt({ user }: { user: CurrentUser }) {
  const [open, setOpen] = useState(false);
  useEffect(() => {
    // Not when the browser has already decided: a blocked permission cannot be asked for again.
    if (!isPushSupported() || Notification.permission === 'denied' || localStorage.getItem(PUSH_PROMPT_SEEN_KEY)) {
      return;
    }
    const timer = setTimeout(() => {
      localStorage.setItem(PUSH_PROMPT_SEEN_KEY, 'true');
      setOpen(true);
    }, LIMITS.pushPromptDelayMs);
    return () => clearTimeout(timer);
  }, []);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogContent sheet>
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
          <Button variant="outline" onClick={() => setOpen(false)}>
            Not Now
          </Button>
          <Button
            onClick={() => {
              setOpen(false);
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
