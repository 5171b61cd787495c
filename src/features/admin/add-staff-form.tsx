import { UserPlus } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { CreateUserBodySchema, type AdminUser } from '../../../schema/admin';
import { USER_TYPES, USER_TYPE_LABELS, type AccountType, type UserType } from '../../../schema/role-rules';
import { Button } from '../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../components/ui/card';
import { FieldFrame, TextField } from '../../components/ui/field';
import { Select } from '../../components/ui/select';
import { InlineSpinner } from '../../components/ui/spinner';
import { useFormValidation } from '../../lib/form';
import { accessEndFor } from './access-end';
import { AccessFields } from './access-fields';
import { createUser } from './admin-api';
import { toastAdminFailure, toastAdminSuccess } from './admin-toasts';

const USER_TYPE_OPTIONS = USER_TYPES.map((value) => ({ value, label: USER_TYPE_LABELS[value] }));

/**
 * "Add New Staff Member" (docs/behaviour.md, "Administration"): no password, the new member chooses one from the
 * invitation.
 */
export function AddStaffForm({ onCreated }: { onCreated: (user: AdminUser) => void }) {
  const [email, setEmail] = useState('');
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [userType, setUserType] = useState<UserType>('staff');
  const [type, setType] = useState<AccountType>('employee');
  const [accessEnds, setAccessEnds] = useState('');
  const [busy, setBusy] = useState(false);
  const accessEndsAt = accessEndFor(type, accessEnds);
  const { errors, check, reset } = useFormValidation(CreateUserBodySchema, {
    ...{ email, firstName, lastName, userType },
    ...{ type, accessEndsAt },
  });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = check();
    if (!body) return;
    setBusy(true);
    try {
      onCreated(await createUser(body));
      toastAdminSuccess('User created successfully');
      setEmail('');
      setFirstName('');
      setLastName('');
      setUserType('staff');
      setType('employee');
      setAccessEnds('');
      reset();
    } catch (error) {
      toastAdminFailure('Failed to create user', error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>
          <UserPlus aria-hidden size={20} /> Add New Staff Member
        </CardTitle>
        <CardDescription>
          No password is needed here: the new staff member receives an invitation e-mail with a link to choose their own
          password.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form className="stack" onSubmit={(e) => void submit(e)} noValidate>
          <TextField
            id="add-email"
            label="Email"
            type="email"
            inputMode="email"
            autoComplete="off"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={errors.email}
          />
          <div className="field-row">
            <TextField
              id="add-first-name"
              label="First Name"
              autoComplete="off"
              required
              value={firstName}
              onChange={(e) => setFirstName(e.target.value)}
              error={errors.firstName}
            />
            <TextField
              id="add-last-name"
              label="Last Name"
              autoComplete="off"
              required
              value={lastName}
              onChange={(e) => setLastName(e.target.value)}
              error={errors.lastName}
            />
          </div>
          <FieldFrame id="add-user-type" label="User Type" error={errors.userType}>
            <Select id="add-user-type" value={userType} onValueChange={setUserType} options={USER_TYPE_OPTIONS} />
          </FieldFrame>
          <AccessFields
            idPrefix="add"
            type={type}
            onTypeChange={setType}
            accessEnds={accessEnds}
            onAccessEndsChange={setAccessEnds}
            errors={errors}
          />
          <Button type="submit" disabled={busy}>
            {busy ? <InlineSpinner /> : null}
            {busy ? 'Adding...' : 'Add Staff Member'}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
