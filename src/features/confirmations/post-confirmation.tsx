import { CheckCircle2, CloudOff, FileCheck } from 'lucide-react';
import { useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { formatDate, formatDateTime } from '../../../schema/format';
import { Button } from '../../components/ui/button';
import type { PostLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { toast } from '../../lib/toast';
import { localDay } from './confirm-list';
import { confirmPost, useOwnAcknowledgement } from './use-confirmations';
import './confirmations.css';

/** "Confirm by 31 Dec 2026", or that it is overdue. */
function dueText(confirmBy: string | null | undefined): string | null {
  if (!confirmBy) return null;
  const day = formatDate(`${confirmBy}T12:00:00`);
  return confirmBy < localDay() ? `Overdue: was due ${day}` : `Confirm by ${day}`;
}

/**
 * A post's read-and-confirm state on its card, for a viewer asked to confirm it
 * (docs/behaviour.md, "Read and confirm"): "Please read and confirm" with "I have read and understood", then
 * "Confirmed <time>". It never blocks the
 * screen; offline the confirmation waits on the device and is sent once (decision 137).
 */
export function PostConfirmation({ db, post, user }: { db: UserDatabase | null; post: PostLocal; user: CurrentUser }) {
  const ack = useOwnAcknowledgement(db, post.id, user.id);
  const [busy, setBusy] = useState(false);
  if (!ack || post.requiresConfirmation !== true) return null;
  if (ack.acknowledgedAt !== null) {
    const at = ack.writtenAt ?? ack.acknowledgedAt;
    return (
      <p className="post-confirm post-confirm-done" role="status">
        <CheckCircle2 aria-hidden size={16} />
        <span>
          Confirmed <time dateTime={new Date(at).toISOString()}>{formatDateTime(at)}</time>
        </span>
        {ack.localPending ? (
          <span className="post-confirm-waiting">
            <CloudOff aria-hidden size={14} />
            Saved — will send when back online
          </span>
        ) : null}
      </p>
    );
  }
  const due = dueText(post.confirmBy);
  const confirm = async () => {
    if (!db || busy) return;
    setBusy(true);
    try {
      await confirmPost(db, post.id, user.id);
      if (!navigator.onLine) toast({ title: 'Confirmation saved', description: 'Saved — will send when back online' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="post-confirm post-confirm-asked">
      <p className="post-confirm-title">
        <FileCheck aria-hidden size={16} />
        Please read and confirm
        {due ? <span className="post-confirm-due">{due}</span> : null}
      </p>
      <Button size="sm" onClick={() => void confirm()} disabled={!db || busy}>
        I have read and understood
      </Button>
    </div>
  );
}
