import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
} from '../../components/ui/alert-dialog';
import type { UserDatabase } from '../../db/database';
import { toast } from '../../lib/toast';
import { deletePost } from './feed-actions';

interface DeletePostDialogProps {
  db: UserDatabase;
  postId: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** Confirms and deletes a post, with the toasts (docs/behaviour.md, "Posts and categories"). */
export function DeletePostDialog({ db, postId, open, onOpenChange }: DeletePostDialogProps) {
  const confirm = async () => {
    try {
      await deletePost(db, postId);
      toast({ title: 'Success', description: 'Post deleted successfully' });
    } catch (error) {
      console.error('Could not delete the post', error);
      toast({ title: 'Error', description: 'Failed to delete post', variant: 'destructive' });
    }
  };
  return (
    <AlertDialog open={open} onOpenChange={onOpenChange}>
      <AlertDialogContent>
        <AlertDialogTitle>Delete this post?</AlertDialogTitle>
        <AlertDialogDescription>
          The post, its comments and its reactions will be removed for everyone. This action cannot be undone.
        </AlertDialogDescription>
        <AlertDialogFooter>
          <AlertDialogCancel>Cancel</AlertDialogCancel>
          <AlertDialogAction onClick={() => void confirm()}>Delete</AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
