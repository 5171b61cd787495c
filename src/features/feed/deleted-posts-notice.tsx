import { TriangleExclamationPoint } from 'lucide-react';
import { useMemo, useSyncExternalStore } from 'react';
import type { ReactionType } from '../../../schema/post-rules';
import { Button } from '../../components/ui/button';
import { Notice } from '../../components/ui/notice';
import {
  dismissLostChanges,
  lostChangesText,
  parseLostChanges,
  subscribeLostChanges,
  type LostFeedChange,
} from '../../db/lost-changes-store';
import { CopyTextButton } from '../../components/copy-text-button';
import { REACTIONS } from './reaction-bar';

const KIND_LABELS: Record<LostFeedChange['kind'], string> = {
  post: 'Your edit of the post',
  comment: 'Your comment',
  reaction: 'Your reaction',
};

/**
 * The user's own changes that a delete on the server won over (decision 117), one notice per deleted post, each
 * with the user's text to read or copy, until they dismiss it.
 */
export function DeletedPostsNotice({ databaseName }: { databaseName: string }) {
  const text = useSyncExternalStore(subscribeLostChanges, () => lostChangesText(databaseName));
  const byPost = useMemo(() => {
    const groups = new Map<string, LostFeedChange[]>();
    for (const change of parseLostChanges(text)) {
      // Messages not sent have their own notice in the chat panel (decision 150).
      if (change.kind !== 'message') groups.set(change.postId, [...(groups.get(change.postId) ?? []), change]);
    }
    return [...groups];
  }, [text]);
  if (byPost.length === 0) return null;
  return (
    <section className="lost-changes" aria-label="Changes not kept">
      {byPost.map(([postId, changes]) => (
        <Notice
          key={postId}
          tone="warning"
          role="status"
          icon={<TriangleExclamationPoint aria-hidden size={18} />}
          title="A post you changed while offline was deleted; your changes were not kept"
          className="lost-changes-notice"
        >
          <ul className="lost-changes-list">
            {changes.map((change) => (
              <LostChangeItem key={`${change.kind}:${change.id}`} change={change} />
            ))}
          </ul>
          <Button variant="outline" size="sm" onClick={() => dismissLostChanges(databaseName, postId)}>
            Dismiss
          </Button>
        </Notice>
      ))}
    </section>
  );
}

function LostChangeItem({ change }: { change: LostFeedChange }) {
  if (change.kind === 'reaction') {
    // A stored list is only as good as what wrote it: an unknown type shows as it was stored.
    const reaction = Object.hasOwn(REACTIONS, change.text) ? REACTIONS[change.text as ReactionType] : undefined;
    return (
      <li>
        {KIND_LABELS.reaction}: {reaction ? `${reaction.emoji} ${reaction.label}` : change.text}
      </li>
    );
  }
  return (
    <li>
      <span className="lost-changes-label">{KIND_LABELS[change.kind]}:</span>
      <p className="lost-changes-text">{change.text}</p>
      <CopyTextButton text={change.text} />
    </li>
  );
}
