import { Pencil } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { EditUserBodySchema, type AdminUser } from '../../../schema/admin';
import type { AccountType, Role } from '../../../schema/role-rules';
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
import { FieldFrame, TextField } from '../../components/ui/field';
import { Select } from '../../components/ui/select';
import { InlineSpinner } from '../../components/ui/spinner';
import { useFormValidation } from '../../lib/form';
import { editedAccessEnd, toLocalInput } from './access-end';
import { AccessFields } from './access-fields';
import { editUser } from './admin-api';
import { toastAdminFailure, toastAdminSuccess } from './admin-toasts';
import { ResetTwoFactor } from './reset-two-factor';
import { ROLE_OPTIONS } from './role-options';

interface EditUserDialogProps {
  user: AdminUser;
  disabled: boolean;
  onSaved: (user: AdminUser) => void;
}

/** "Edit User": email, names, role, type and access end (docs/behaviour.md, "Administration"). */
export function EditUserDialog({ user, disabled, onSaved }: EditUserDialogProps) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" disabled={disabled} aria-label="Edit User">
          <Pencil aria-hidden size={14} />
          Edit
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogTitle>Edit User</DialogTitle>
        <DialogDescription>Change the account details of {user.firstName || user.email}.</DialogDescription>
        {/* Mounted only while open, so the form starts from the current values every time. */}
        {open ? (
          <>
            <EditUserForm
              user={user}
              onSaved={(saved) => {
                onSaved(saved);
                setOpen(false);
              }}
            />
            <ResetTwoFactor
              user={user}
              onReset={(saved) => {
                onSaved(saved);
                setOpen(false);
              }}
            />
          </>
        ) : null}
      </DialogContent>
    </Dialog>
  );
}

function EditUserForm({ user, onSaved }: { user: AdminUser; onSaved: (user: AdminUser) => void }) {
  const [email, setEmail] = useState(user.email);
  const [firstName, setFirstName] = useState(user.firstName);
  const [lastName, setLastName] = useState(user.lastName);
  const [role, setRole] = useState<Role>(user.role);
  const [type, setType] = useState<AccountType>(user.type);
  const [accessEnds, setAccessEnds] = useState(toLocalInput(user.accessEndsAt));
  const [busy, setBusy] = useState(false);
  const { errors, check } = useFormValidation(EditUserBodySchema, {
    ...{ email, firstName, lastName, role, type },
    ...editedAccessEnd(user, type, accessEnds),
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = check();
    if (!body) return;
    setBusy(true);
    try {
      const saved = await editUser(user.id, body);
      toastAdminSuccess('User updated successfully');
      onSaved(saved);
    } catch (error) {
      toastAdminFailure('Failed to update user', error);
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={(e) => void submit(e)} noValidate>
      <TextField
        id="edit-email"
        label="Email"
        type="email"
        inputMode="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={errors.email}
      />
      <div className="field-row">
        <TextField
          id="edit-first-name"
          label="First Name"
          value={firstName}
          onChange={(e) => setFirstName(e.target.value)}
          error={errors.firstName}
        />
        <TextField
          id="edit-last-name"
          label="Last Name"
          value={lastName}
          onChange={(e) => setLastName(e.target.value)}
          error={errors.lastName}
        />
      </div>
      <FieldFrame id="edit-role" label="Role" error={errors.role}>
        <Select id="edit-role" value={role} onValueChange={setRole} options={ROLE_OPTIONS} />
      </FieldFrame>
      <AccessFields
        idPrefix="edit"
        type={type}
        onTypeChange={setType}
        accessEnds={accessEnds}
        onAccessEndsChange={setAccessEnds}
        errors={errors}
      />
      <DialogFooter>
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button type="submit" disabled={busy}>
          {busy ? <InlineSpinner /> : null}
          Save Changes
        </Button>
      </DialogFooter>
    </form>
  );
}
