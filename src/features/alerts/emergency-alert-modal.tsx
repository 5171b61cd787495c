import { AlertTriangle, Check, CloudOff } from 'lucide-react';
import { AlertDialog as AlertDialogPrimitive } from 'radix-ui';
import { useSetAtom } from 'jotai';
import { useEffect, useRef } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { categoryLabel } from '../../../schema/post-rules';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import type { UserDatabase } from '../../db/database';
import { useLocalStore } from '../../db/local-store-state';
import { alertOpenAtom } from '../../lib/alert-open';
import { toast } from '../../lib/toast';
import { useAuthors } from '../../lib/use-authors';
import { PostText } from '../../components/post-text';
import { formatRelativeTime } from './alert-list';
import { acknowledgeAlert, usePendingAlerts } from './use-alerts';
import './alerts.css';

/** Offline the acknowledgement waits in the local database; the user is told it is not yet sent. */
async function acknowledge(db: UserDatabase, acknowledgementId: string): Promise<void> {
  await acknowledgeAlert(db, acknowledgementId);
  if (!navigator.onLine) toast({ title: 'Acknowledgement saved', description: 'Saved — will send when back online' });
}

/**
 * The blocking EMERGENCY ALERT modal (docs/behaviour.md, "Urgent alerts"): every unacknowledged urgent post addressed
 * to the user, each with "I have read this message". It cannot be closed otherwise. Offline, an acknowledgement is
 * saved and shown as not yet sent; the modal closes once nothing is left unacknowledged.
 */
export function EmergencyAlertModal({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const db = store?.db ?? null;
  const alerts = usePendingAlerts(db, user.id);
  const authors = useAuthors(store, user);
  const open = alerts.some((alert) => !alert.savedOffline);
  const setAlertOpen = useSetAtom(alertOpenAtom);
  useEffect(() => {
    setAlertOpen(open);
    return () => setAlertOpen(false);
  }, [open, setAlertOpen]);
  const content = useRef<HTMLDivElement>(null);
  // It opens by itself, not from a button: the focus goes to the first acknowledgement, and back to the next
  // one when an acknowledged alert leaves the list (otherwise it would fall out of the modal to the page).
  const focusNextAction = () => {
    const box = content.current;
    if (!box || box.contains(document.activeElement)) return;
    (box.querySelector<HTMLElement>('.emergency-ack') ?? box).focus({ preventScroll: true });
  };
  useEffect(focusNextAction, [alerts, open]);
  return (
    <AlertDialogPrimitive.Root open={open}>
      <AlertDialogPrimitive.Portal>
        <AlertDialogPrimitive.Overlay className="overlay emergency-overlay" />
        <AlertDialogPrimitive.Content
          ref={content}
          onOpenAutoFocus={(event) => {
            event.preventDefault();
            focusNextAction();
          }}
          className="emergency-modal"
          onEscapeKeyDown={(event) => event.preventDefault()}
          aria-describedby="emergency-footer"
        >
          <div className="emergency-head">
            <AlertTriangle aria-hidden size={28} />
            <AlertDialogPrimitive.Title className="emergency-title">EMERGENCY ALERT</AlertDialogPrimitive.Title>
          </div>
          <ul className="emergency-list" aria-label="Emergency messages">
            {alerts.map(({ post, acknowledgementId, savedOffline }) => {
              const author = authors(post.authorId);
              return (
                <li key={post.id} className="emergency-item">
                  <div className="emergency-item-head">
                    <Badge tone="danger">{categoryLabel(post.category)}</Badge>
                    <time className="muted" dateTime={new Date(post.writtenAt).toISOString()}>
                      {formatRelativeTime(post.writtenAt)}
                    </time>
                  </div>
                  <p className="emergency-author">{author.name}</p>
                  <div className="emergency-content">
                    <PostText text={post.content} />
                  </div>
                  {savedOffline ? (
                    <p className="emergency-saved" role="status">
                      <CloudOff aria-hidden size={16} />
                      Saved — will send when back online
                    </p>
                  ) : (
                    <Button
                      variant="destructive"
                      className="emergency-ack"
                      onClick={() => db && void acknowledge(db, acknowledgementId)}
                    >
                      <Check aria-hidden size={18} />I have read this message
                    </Button>
                  )}
                </li>
              );
            })}
          </ul>
          <p id="emergency-footer" className="emergency-footer">
            Please acknowledge all emergency messages before continuing
          </p>
        </AlertDialogPrimitive.Content>
      </AlertDialogPrimitive.Portal>
    </AlertDialogPrimitive.Root>
  );
}
