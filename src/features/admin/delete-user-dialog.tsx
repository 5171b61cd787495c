import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
  AlertDialogTrigger,
} from '../../components/ui/alert-dialog';
import { Button } from '../../components/ui/button';
import { deleteUser } from './admin-api';
import { toastAdminFailure, toastAdminSuccess } from './admin-toasts';

interface DeleteUserDialogProps {
  user: AdminUser;
  disabled: boolean;
  onDeleted: (id: string) => void;
}

/** Deleting asks first ("Are you sure you want to delete {first} {last}?..."; docs/behaviour.md, "Administration"). */
export function DeleteUserDialog({ user, disabled, onDeleted }: DeleteUserDialogProps) {
  const [busy, setBusy] = useState(false);

  async function confirm() {
    setBusy(true);
    try {
      await deleteUser(user.id);
      toastAdminSuccess('User deleted successfully');
      onDeleted(user.id);
    } catch (error) {
      toastAdminFailure('Failed to delete user', error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <AlertDialog>
      <AlertDialogTrigger asChild>
        <Button variant="destructive" size="sm" disabled={disabled || busy} aria-label="Delete User">
          <Trash2 aria-hidden size={14} />
          Delete
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogTitle>Delete user</AlertDialogTitle>
        <AlertDialogDescription>
          {`Are you sure you want to delete ${user.firstName} ${user.lastName}? This action cannot be undone.`}
        </AlertDialogDescription>
        <AlertDialogFooter>
          <AlertDialogCancel>Cancel</AlertDialogCancel>
          <AlertDialogAction onClick={() => void confirm()}>Delete</AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
