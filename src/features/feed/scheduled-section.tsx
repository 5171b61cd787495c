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
import { useLocalStore } from '../../db/local-store-state';
import { api, ApiError, serverMessageOf } from '../../lib/api';
import { toast } from '../../lib/toast';
import { useOnline } from '../../lib/use-online';
import { localInputOf, publishAtOf } from './scheduled-posts';
import { cancelOnDevice, rescheduleOnDevice, settleScheduled } from './scheduled-sync';

/** One row of the section: the server's view when it has one, else the device's own unsent post. */
interface ScheduledRow {
  id: string;
  content: string;
  publishAt: string;
  authorName: string | null;
  /** The user's own post, held by this device: changed here, offline too (decision 142). */
  onDevice: boolean;
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
 * Reads the list again once the replication has sent what the device changed (an edit or a time made offline), so the
 * change is marked sent against the server's list: no pull brings a scheduled post back (decision 142).
 */
function useRefreshWhenSent(waiting: boolean, key: string, refresh: () => void) {
  const store = useLocalStore();
  useEffect(() => {
    if (!waiting || !store) return;
    let live = true;
    void store.sync.awaitInSync().then(
      () => live && refresh(),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [waiting, key, store, refresh]);
}

/** Whether the server holds this post nowhere, neither scheduled nor published: its comments answer 404 then. */
async function isGoneFromServer(id: string): Promise<boolean> {
  try {
    await api.get(`/api/posts/${encodeURIComponent(id)}/comments`);
    return false;
  } catch (error) {
    return error instanceof ApiError && error.status === 404;
  }
}

/**
 * Follows the server's list with the device's own scheduled posts (decision 142): marks sent what it holds, takes an
 * admin's edit, removes what an admin cancelled.
 */
function useSettleScheduled(db: UserDatabase | null, own: readonly PostLocal[], server: ScheduledPostView[] | null) {
  useEffect(() => {
    if (!db || !server) return;
    void settleScheduled(db, own, server, isGoneFromServer).catch(() => {
      // The store closed (sign-out) or the connection went: the next list read settles it.
    });
  }, [db, own, server]);
}

/**
 * The feed's "Scheduled" section: the user's own scheduled posts (an admin's: everyone's), with Edit and Cancel. The
 * user's own are changed on the device, offline too, and sent once (decision 142); a colleague's, which only an admin
 * sees and the device does not hold, through REST when online.
 */
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
  const key = posts.map((p) => `${p.id}:${p.localPending ? 1 : 0}`).join();
  const enabled = online && (admin || posts.length > 0);
  const [server, refresh] = useServerScheduled(enabled, key);
  useRefreshWhenSent(enabled && posts.some((post) => post.localPending), key, refresh);
  // Cancelled, or published now, on this device: gone from the section before the server's list says so.
  const [cancelled, setCancelled] = useState<ReadonlySet<string>>(() => new Set());
  useSettleScheduled(db, posts, server);

  const mine = new Map(posts.map((post) => [post.id, post]));
  const rows: ScheduledRow[] = [];
  for (const post of server ?? []) {
    if (cancelled.has(post.id)) continue;
    const local = mine.get(post.id);
    // A change made here and not yet sent shows as made; otherwise the server's (an admin's edit).
    const shown =
      local?.localPending && local.publishAt ? { content: local.content, publishAt: local.publishAt } : post;
    const authorName = post.author.id === user.id ? null : displayName(post.author);
    rows.push({ id: post.id, content: shown.content, publishAt: shown.publishAt, authorName, onDevice: !!local });
  }
  const listed = new Set(rows.map((row) => row.id));
  for (const post of posts) {
    if (!listed.has(post.id) && !cancelled.has(post.id) && post.publishAt) {
      rows.push({ id: post.id, content: post.content, publishAt: post.publishAt, authorName: null, onDevice: true });
    }
  }
  rows.sort((a, b) => Date.parse(a.publishAt) - Date.parse(b.publishAt));
  if (rows.length === 0) return null;

  const save = async (row: ScheduledRow, content: string, publishAt: string | null) => {
    if (row.onDevice && db) {
      await rescheduleOnDevice(db, row.id, content, publishAt);
      if (publishAt === null) setCancelled((before) => new Set([...before, row.id]));
      return;
    }
    await api.patch(`/api/posts/${row.id}`, { content, publishAt });
    refresh();
  };
  const cancel = async (row: ScheduledRow) => {
    if (row.onDevice && db) {
      await cancelOnDevice(db, row.id);
      setCancelled((before) => new Set([...before, row.id]));
      return;
    }
    await api.delete(`/api/posts/${row.id}`);
    refresh();
  };

  return (
    <section className="scheduled-list" aria-label="Scheduled">
      <h2 className="scheduled-title">Scheduled</h2>
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
  // The user's own post is changed on the device; a colleague's (an admin's view) only through the server.
  const usable = online || row.onDevice;

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
      {usable ? null : (
        <p className="scheduled-offline">
          You are offline: a colleague’s scheduled post can be changed once you are back online.
        </p>
      )}
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
            <Button type="submit" disabled={busy || !usable || content.trim() === ''}>
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
            <Button type="button" variant="outline" onClick={() => setEditing(true)} disabled={!usable || busy}>
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
              disabled={!usable || busy}
            >
              Cancel
            </Button>
          </div>
        </>
      )}
    </Card>
  );
}
