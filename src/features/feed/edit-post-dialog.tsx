import { useAtom } from 'jotai';
import { useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { map } from 'rxjs';
import { DEFAULT_POST_CATEGORY, POST_CONTENT_MAX, toPostCategory, type PostCategory } from '../../../schema/post-rules';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '../../components/ui/dialog';
import { Label } from '../../components/ui/label';
import { Notice } from '../../components/ui/notice';
import { Select } from '../../components/ui/select';
import { Switch } from '../../components/ui/switch';
import { Textarea } from '../../components/ui/textarea';
import type { PostLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { useLocalStore } from '../../db/local-store-state';
import { toast } from '../../lib/toast';
import { useConnection } from '../../lib/use-connection';
import { AlertAudiencePicker, audienceHousesOf, audienceOf, type AlertAudience } from './alert-audience-picker';
import { CATEGORY_OPTIONS } from './category-options';
import { CopyTextButton } from '../../components/copy-text-button';
import { editingPostAtom } from './edit-post-state';
import { editPost } from './feed-actions';
import { useObservable } from '../../lib/use-observable';
import type { CurrentUser } from '../../../schema/auth';
import { canRequireConfirmation } from '../../../schema/permissions';
import { ConfirmationFields, confirmationOfPost, storedConfirmation } from './confirmation-fields';

interface EditPostDialogProps {
  db: UserDatabase;
  /** The editor: only admins see "Requires confirmation" (decision 137). */
  user: CurrentUser;
  post: PostLocal;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** The feed's one edit dialog, for the post the card's edit button chose (editingPostAtom, decision 117). */
export function EditPostHost({ db, user }: { db: UserDatabase | null; user: CurrentUser }) {
  const [post, setPost] = useAtom(editingPostAtom);
  // Leaving the feed (another screen, sign-out) ends the edit: coming back must not open it again.
  useEffect(() => () => setPost(null), [setPost]);
  if (!db || !post) return null;
  return (
    <EditPostDialog
      db={db}
      user={user}
      post={post}
      open
      onOpenChange={(open) => {
        if (!open) setPost(null);
      }}
    />
  );
}

/**
 * Edit of content, category, urgency and an urgent post's audience, with its toasts
 * (docs/behaviour.md, "Posts and categories").
 */
export function EditPostDialog({ db, user, post, open, onOpenChange }: EditPostDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? (
        <DialogContent>
          <EditPostForm
            db={db}
            post={post}
            mayRequireConfirmation={canRequireConfirmation(user)}
            onDone={() => onOpenChange(false)}
          />
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function EditPostForm({
  db,
  post,
  mayRequireConfirmation,
  onDone,
}: {
  db: UserDatabase;
  post: PostLocal;
  mayRequireConfirmation: boolean;
  onDone: () => void;
}) {
  const id = useId();
  // A legacy value edits as its modern category; "General" (unknown) starts on the default but is only
  // written if the user picks a category.
  const initialCategory = toPostCategory(post.category) ?? DEFAULT_POST_CATEGORY;
  const [content, setContent] = useState(post.content);
  const [category, setCategory] = useState<PostCategory>(initialCategory);
  const [isUrgent, setUrgent] = useState(post.isUrgent);
  // The alert's audience, as in the composer; making the post ordinary clears it (decision 33).
  const [audience, setAudience] = useState<AlertAudience>(() => audienceOf(post.audienceHouses));
  const [confirmation, setConfirmation] = useState(() => confirmationOfPost(post));
  const addressed = isUrgent || confirmation.required;
  const [busy, setBusy] = useState(false);
  // The post as the form opened with it: fields left so keep whatever a colleague's change meanwhile made them.
  const [shown] = useState(post);
  const connection = useConnection(useLocalStore());
  // Deleted meanwhile (by someone else, or a conflict the server's delete won): the form stays with its text.
  const deleted$ = useMemo(() => db.posts.findOne(post.id).$.pipe(map((doc) => doc === null)), [db, post.id]);
  const deleted = useObservable(deleted$, false).value;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!content.trim() || busy || deleted) return;
    setBusy(true);
    try {
      await editPost(
        db,
        post.id,
        {
          content,
          category: category === initialCategory ? undefined : category,
          isUrgent,
          audienceHouses: audienceHousesOf(addressed, audience),
          // Staff never change it: left out, the post keeps what it holds.
          ...(mayRequireConfirmation ? storedConfirmation(confirmation) : {}),
        },
        shown,
      );
      // The success toast only while the server can be reached; otherwise the edit waits here (decision 116).
      if (connection === 'online') {
        toast({ title: 'Post updated', description: 'Your post has been updated successfully.' });
      } else {
        toast({ title: 'Saved on this device — it will be sent when you are back online' });
      }
      onDone();
    } catch (error) {
      console.error('Could not update the post', error);
      toast({ title: 'Error', description: 'Failed to update post. Please try again.', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)}>
      <DialogTitle>Edit Post</DialogTitle>
      <DialogDescription>
        Change the text, category or urgency of this post, and who an urgent post alerts.
      </DialogDescription>
      {deleted ? (
        <Notice tone="danger" role="alert">
          <p>This post was deleted while you were editing it; your changes cannot be saved.</p>
          <CopyTextButton text={content} label="Copy text" />
        </Notice>
      ) : null}
      <div className="field">
        <Label htmlFor={`${id}-content`}>Content</Label>
        <Textarea
          id={`${id}-content`}
          value={content}
          rows={6}
          maxLength={POST_CONTENT_MAX}
          readOnly={deleted}
          onChange={(event) => setContent(event.target.value)}
        />
      </div>
      <div className="field">
        <Label htmlFor={`${id}-category`}>Category</Label>
        <Select id={`${id}-category`} value={category} onValueChange={setCategory} options={CATEGORY_OPTIONS} />
      </div>
      <div className="composer-urgent">
        <Switch id={`${id}-urgent`} checked={isUrgent} onCheckedChange={setUrgent} className="switch-danger" />
        <Label htmlFor={`${id}-urgent`}>Mark as urgent</Label>
      </div>
      {mayRequireConfirmation ? (
        <ConfirmationFields value={confirmation} onChange={setConfirmation} disabled={busy} />
      ) : null}
      {addressed ? (
        <AlertAudiencePicker value={audience} onChange={setAudience} disabled={busy} urgent={isUrgent} />
      ) : null}
      <DialogFooter>
        <Button variant="outline" onClick={onDone}>
          {deleted ? 'Close' : 'Cancel'}
        </Button>
        <Button type="submit" disabled={!content.trim() || busy || deleted}>
          {busy ? 'Saving...' : 'Save Changes'}
        </Button>
      </DialogFooter>
    </form>
  );
}
