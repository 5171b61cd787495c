import { useCallback, useEffect, useId, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { displayName, formatDateTime } from '../../../schema/format';
import { canSeeAllScheduledPosts } from '../../../schema/permissions';
import { POST_CONTENT_MAX } from '../../../schema/post-rules';
import type { ScheduledPostView } from '../../../schema/posts';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import { Input } from '../../components/ui/input';
import { Label } from '../../components/ui/label';
import { Textarea } from '../../components/ui/textarea';
import type { PostLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { api, ApiError, serverMessageOf } from '../../lib/api';
import { toast } from '../../lib/toast';
import { useOnline } from '../../lib/use-online';
import { localInputOf, publishAtOf } from './scheduled-posts';

/** One row of the section: the server's view when it has one, else the device's own unsent post. */
interface ScheduledRow {
  id: string;
  content: string;
  publishAt: string;
  authorName: string | null;
}

/**
 * The scheduled posts the server holds for this user (an admin: everyone's), read when online and there is something
 * to show (decision 141); null until read. Scheduled posts are in no pull, so this is how a device learns of them.
 */
function useServerScheduled(enabled: boolean, key: string): [ScheduledPostView[] | null, () => void] {
  const [list, setList] = useState<ScheduledPostView[] | null>(null);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    // The answer's shape is ScheduledPostViewSchema's (GET /api/posts/scheduled, docs/api-feed.md).
    api.get('/api/posts/scheduled').then(
      (answer) => live && setList(answer as ScheduledPostView[]),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [enabled, key, round]);
  return [list, useCallback(() => setRound((n) => n + 1), [])];
}

/**
 * Marks the device's scheduled posts the server has as sent: no pull will bring them back until they are published,
 * and a pulled copy is what otherwise clears `localPending` (the "not yet sent" count).
 */
function useSettleSent(db: UserDatabase | null, own: readonly PostLocal[], server: ScheduledPostView[] | null) {
  useEffect(() => {
    if (!db || !server) return;
    const known = new Set(server.map((post) => post.id));
    for (const post of own) {
      if (!post.localPending || !known.has(post.id)) continue;
      void db.posts
        .findOne(post.id)
        .exec()
        .then((doc) => doc?.incrementalPatch({ localPending: false }));
    }
  }, [db, own, server]);
}

/** The feed's "Scheduled" section: the user's own scheduled posts (an admin's: everyone's), with Edit and Cancel. */
export function ScheduledSection({
  db,
  user,
  posts,
}: {
  db: UserDatabase | null;
  user: CurrentUser;
  posts: readonly PostLocal[];
}) {
  const online = useOnline();
  const admin = canSeeAllScheduledPosts(user);
  const [server, refresh] = useServerScheduled(online && (admin || posts.length > 0), posts.map((p) => p.id).join());
  useSettleSent(db, posts, server);

  const rows: ScheduledRow[] = (server ?? []).map((post) => ({
    id: post.id,
    content: post.content,
    publishAt: post.publishAt,
    authorName: post.author.id === user.id ? null : displayName(post.author),
  }));
  const listed = new Set(rows.map((row) => row.id));
  for (const post of posts) {
    if (!listed.has(post.id) && post.publishAt) {
      rows.push({ id: post.id, content: post.content, publishAt: post.publishAt, authorName: null });
    }
  }
  rows.sort((a, b) => Date.parse(a.publishAt) - Date.parse(b.publishAt));
  if (rows.length === 0) return null;

  const local = (id: string) => db?.posts.findOne(id).exec() ?? Promise.resolve(null);
  const save = async (row: ScheduledRow, content: string, publishAt: string | null) => {
    // The answer is a PostView, with publishAt while still scheduled (docs/api-feed.md).
    const answer = (await api.patch(`/api/posts/${row.id}`, { content, publishAt })) as Partial<ScheduledPostView>;
    const doc = await local(row.id);
    // Still scheduled: the device's copy follows; published now: the pull brings the post in its place.
    if (doc && answer.publishAt) {
      await doc.incrementalPatch({
        content: answer.content ?? content,
        publishAt: answer.publishAt,
        localPending: false,
      });
    }
    refresh();
  };
  const cancel = async (row: ScheduledRow) => {
    try {
      await api.delete(`/api/posts/${row.id}`);
    } catch (error) {
      // Neither scheduled nor published any more (an admin cancelled it): only this device's copy is left.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    await (await local(row.id))?.remove();
    refresh();
  };

  return (
    <section className="scheduled-list" aria-label="Scheduled">
      <h2 className="scheduled-title">Scheduled</h2>
      {online ? null : (
        <p className="scheduled-offline">
          You are offline: scheduled posts can be edited or cancelled once you are back online.
        </p>
      )}
      {rows.map((row) => (
        <ScheduledCard key={row.id} row={row} online={online} onSave={save} onCancel={cancel} />
      ))}
    </section>
  );
}

function ScheduledCard({
  row,
  online,
  onSave,
  onCancel,
}: {
  row: ScheduledRow;
  online: boolean;
  onSave: (row: ScheduledRow, content: string, publishAt: string | null) => Promise<void>;
  onCancel: (row: ScheduledRow) => Promise<void>;
}) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [content, setContent] = useState(row.content);
  const [when, setWhen] = useState(() => localInputOf(row.publishAt));
  const [busy, setBusy] = useState(false);

  const run = async (work: () => Promise<void>, failure: string) => {
    setBusy(true);
    try {
      await work();
      setEditing(false);
    } catch (error) {
      toast({ title: failure, description: serverMessageOf(error, 'Please try again.'), variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card className="scheduled-card" aria-label={`Scheduled for ${formatDateTime(row.publishAt)}`}>
      <p className="scheduled-when">
        Scheduled for {formatDateTime(row.publishAt)}
        {row.authorName ? ` · by ${row.authorName}` : ''}
      </p>
      {editing ? (
        <form
          className="scheduled-edit"
          onSubmit={(event) => {
            event.preventDefault();
            void run(() => onSave(row, content.trim(), publishAtOf(when)), 'Failed to update the scheduled post');
          }}
        >
          <Label htmlFor={`${id}-content`}>Post content</Label>
          <Textarea
            id={`${id}-content`}
            value={content}
            maxLength={POST_CONTENT_MAX}
            onChange={(event) => setContent(event.target.value)}
            disabled={busy}
          />
          <Label htmlFor={`${id}-when`}>Publish at (empty: now)</Label>
          <Input
            id={`${id}-when`}
            type="datetime-local"
            value={when}
            onChange={(event) => setWhen(event.target.value)}
            disabled={busy}
          />
          <div className="scheduled-actions">
            <Button type="submit" disabled={busy || !online || content.trim() === ''}>
              Save
            </Button>
            <Button type="button" variant="outline" onClick={() => setEditing(false)} disabled={busy}>
              Back
            </Button>
          </div>
        </form>
      ) : (
        <>
          <p className="scheduled-content">{row.content}</p>
          <div className="scheduled-actions">
            <Button type="button" variant="outline" onClick={() => setEditing(true)} disabled={!online || busy}>
              Edit
            </Button>
            <Button
              type="button"
              variant="outline"
              onClick={() => {
                if (window.confirm('Cancel this scheduled post? It will not be published.')) {
                  void run(() => onCancel(row), 'Failed to cancel the scheduled post');
                }
              }}
              disabled={!online || busy}
            >
              Cancel
            </Button>
          </div>
        </>
      )}
    </Card>
  );
}
