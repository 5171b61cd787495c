import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogTitle,
} from '../../components/ui/alert-dialog';
import { localStoreAtom } from '../../db/local-store-state';
import { appStore } from '../../lib/store';
import { signOut } from './session';

/** Items the user wrote that the server has not confirmed; the database code is asked only when a store is open. */
export async function countUnsent(): Promise<number> {
  if (!appStore.get(localStoreAtom)) return 0;
  try {
    const { countUnsentItems } = await import('../../db/local-store');
    return await countUnsentItems();
  } catch (error) {
    console.error('Could not count unsent items', error);
    return 0;
  }
}

export const itemsText = (count: number) => `${count} unsent ${count === 1 ? 'item' : 'items'}`;

/**
 * Sign Out that never loses work without the user choosing so (decision 114): with unsent items it asks first,
 * "Stay signed in" being the default; signing out anyway keeps them sealed on the device for the next sign-in.
 */
export function useSignOut(): { requestSignOut: () => void; signOutDialog: ReactNode } {
  const navigate = useNavigate();
  const [unsent, setUnsent] = useState<number | null>(null);
  const requestSignOut = () => {
    void countUnsent().then((count) => (count > 0 ? setUnsent(count) : signOut(navigate)));
  };
  const signOutDialog = (
    <AlertDialog open={unsent !== null} onOpenChange={(open) => (open ? undefined : setUnsent(null))}>
      <AlertDialogContent>
        <AlertDialogTitle>Sign out with unsent items?</AlertDialogTitle>
        <AlertDialogDescription>
          You have {itemsText(unsent ?? 0)} that {unsent === 1 ? 'has' : 'have'} not reached the server yet.
        </AlertDialogDescription>
        <AlertDialogFooter>
          <AlertDialogCancel>Stay signed in</AlertDialogCancel>
          <AlertDialogAction className="dialog-action-wrap" onClick={() => void signOut(navigate)}>
            Sign out anyway — they will be sent next time you sign in on this device
          </AlertDialogAction>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
  return { requestSignOut, signOutDialog };
}
