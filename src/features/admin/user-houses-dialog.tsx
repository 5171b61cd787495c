import { House } from 'lucide-react';
import { useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import { displayName } from '../../../schema/format';
import { Button } from '../../components/ui/button';
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
  DialogTrigger,
} from '../../components/ui/dialog';
import { InlineSpinner } from '../../components/ui/spinner';
import { HousePicker } from '../../components/house-picker';
import { setUserHouses } from './admin-api';
import { toastAdminFailure, toastAdminSuccess } from './admin-toasts';

/** The houses a staff member works in: an urgent post addressed to a house alerts its members. */
export function UserHousesDialog({
  user,
  disabled,
  onSaved,
}: {
  user: AdminUser;
  disabled: boolean;
  onSaved: (user: AdminUser) => void;
}) {
  const [open, setOpen] = useState(false);
  const [houses, setHouses] = useState<string[]>(user.houses);
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    try {
      const saved = await setUserHouses(user.id, houses);
      onSaved(saved);
      toastAdminSuccess('User houses updated successfully');
      setOpen(false);
    } catch (error) {
      toastAdminFailure('Failed to update user houses', error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) setHouses(user.houses);
      }}
    >
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" disabled={disabled} aria-label="Houses">
          <House aria-hidden size={14} />
          Houses
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogTitle>Houses</DialogTitle>
        <DialogDescription>
          Where {displayName(user)} works: urgent posts for these houses alert them.
        </DialogDescription>
        <HousePicker value={houses} onChange={setHouses} disabled={busy} />
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button onClick={() => void save()} disabled={busy}>
            {busy ? <InlineSpinner /> : null}
            Save
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
