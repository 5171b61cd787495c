import { useId, useState, type FormEvent } from 'react';
import {
  RESIDENT_FIELD_LABELS,
  RESIDENT_MESSAGES,
  RESIDENT_NAME_MAX,
  RESIDENT_PHOTO_MAX_BYTES,
  RESIDENT_TEXT_FIELDS,
  RESIDENT_TEXT_MAX,
  ResidentEditSchema,
} from '../../../schema/residents';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '../../components/ui/dialog';
import { FieldFrame, TextField } from '../../components/ui/field';
import { Input } from '../../components/ui/input';
import { Textarea } from '../../components/ui/textarea';
import type { ResidentLocal } from '../../db/collections';
import { toast } from '../../lib/toast';
import { HousePicker } from '../../components/house-picker';
import { useLocalStore } from '../../db/local-store-state';
import { useConnection } from '../../lib/use-connection';
import { Notice } from '../../components/ui/notice';
import { describeMerge, saveResidentEdit } from './resident-actions';
import { keepAndSendPhoto } from './use-pending-photos';
import { createResident, type ResidentFormValues } from './residents-api';
import { ResidentPhoto } from './resident-photo';

interface ResidentFormDialogProps {
  /** The resident being edited; none to add one. */
  resident: ResidentLocal | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Called after the profile was saved (on the device for an edit; the page asks sync to bring it). */
  onSaved: () => void;
}

/** "Add New Resident" / "Edit Resident", with their toasts (docs/behaviour.md, "Residents"). */
export function ResidentFormDialog({ resident, open, onOpenChange, onSaved }: ResidentFormDialogProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? (
        <DialogContent className="dialog-wide">
          <ResidentForm
            resident={resident}
            onDone={() => onOpenChange(false)}
            onSaved={() => {
              onSaved();
              onOpenChange(false);
            }}
          />
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

function initialValues(resident: ResidentLocal | null): ResidentFormValues {
  const values: ResidentFormValues = {
    name: resident?.name ?? '',
    likeToBeCall: resident?.likeToBeCall ?? '',
    dateOfBirth: resident?.dateOfBirth ?? '',
    houseTags: resident?.houseTags ?? [],
    interestsHappyPlace: '',
    supportNeedsCarePreferences: '',
    whatMakesSadAnxious: '',
    medication: '',
    strengthsAbilities: '',
    communicationPreferences: '',
    familySocialConnections: '',
    personalValuesBeliefs: '',
  };
  for (const field of RESIDENT_TEXT_FIELDS) values[field] = resident?.[field] ?? '';
  return values;
}

/** Today as the date input writes it (YYYY-MM-DD, local time): a birth date cannot be later. */
function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

function ResidentForm({
  resident,
  onDone,
  onSaved,
}: {
  resident: ResidentLocal | null;
  onDone: () => void;
  onSaved: () => void;
}) {
  const id = useId();
  const [values, setValues] = useState(() => initialValues(resident));
  const [photo, setPhoto] = useState<File | null>(null);
  const [photoError, setPhotoError] = useState<string | undefined>();
  const [nameError, setNameError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const editing = resident !== null;
  const store = useLocalStore();
  const offline = useConnection(store) !== 'online';
  const set = <K extends keyof ResidentFormValues>(key: K, value: ResidentFormValues[K]) =>
    setValues((current) => ({ ...current, [key]: value }));

  const choosePhoto = (file: File | undefined) => {
    setPhotoError(undefined);
    setPhoto(null);
    if (!file) return;
    // docs/behaviour.md, "Residents": the photo must be an image; the server checks the content again.
    if (!file.type.startsWith('image/')) return setPhotoError('Please select an image file.');
    if (file.size > RESIDENT_PHOTO_MAX_BYTES) return setPhotoError(RESIDENT_MESSAGES.photoTooLarge);
    setPhoto(file);
  };

  /**
   * An edit is saved on the device and synced (decision 120); a new photo waits on the device too and is sent at once
   * when the server can be reached, else when back online (decision 123).
   */
  const saveEdit = async (shown: ResidentLocal) => {
    const parsed = ResidentEditSchema.safeParse(values);
    if (!parsed.success) {
      toast({ title: 'Error', description: parsed.error.issues[0].message, variant: 'destructive' });
      return;
    }
    if (!store) throw new Error('The local database is not open');
    const merge = await saveResidentEdit(store.db, shown, parsed.data);
    if (!merge) {
      toast({
        title: 'Error',
        description: 'This resident was archived while you were editing; your changes cannot be saved.',
        variant: 'destructive',
      });
      return;
    }
    const photoState = photo ? await keepAndSendPhoto(store, shown, photo) : 'sent';
    // The success toast only once the server has it all; otherwise the edit waits here (decision 116).
    if (photoState !== 'sent' && photoState !== 'waiting') {
      toast({
        title: 'Error',
        description: `Your other changes were saved, but the photo was refused: ${photoState.refused}`,
        variant: 'destructive',
      });
    } else if (offline || photoState === 'waiting') {
      toast({ title: 'Saved on this device — it will be sent when you are back online' });
    } else {
      toast({ title: 'Success', description: 'Resident updated successfully' });
    }
    if (merge.theirs.length > 0) {
      toast({ title: 'Someone else changed this profile', description: describeMerge(shown.name, merge, 'editing') });
    }
    onSaved();
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    if (!values.name.trim()) return setNameError(RESIDENT_MESSAGES.nameRequired);
    if (photoError) return;
    setBusy(true);
    try {
      if (resident) return await saveEdit(resident);
      await createResident(values, photo);
      toast({ title: 'Success', description: 'Resident created successfully' });
      onSaved();
    } catch (error) {
      console.error('Could not save the resident', error);
      toast({
        title: 'Error',
        description: editing ? 'Failed to update resident' : 'Failed to create resident',
        variant: 'destructive',
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
      <DialogTitle>{editing ? 'Edit Resident' : 'Add New Resident'}</DialogTitle>
      <DialogDescription>
        A One Page Profile: what matters to this person and how to support them. Only the name must be filled in.
      </DialogDescription>
      <TextField
        id={`${id}-name`}
        label="Full Name *"
        value={values.name}
        maxLength={RESIDENT_NAME_MAX}
        required
        error={nameError}
        onChange={(event) => {
          setNameError(undefined);
          set('name', event.target.value);
        }}
      />
      <div className="field-row">
        <TextField
          id={`${id}-like`}
          label={RESIDENT_FIELD_LABELS.likeToBeCall}
          value={values.likeToBeCall}
          maxLength={RESIDENT_NAME_MAX}
          onChange={(event) => set('likeToBeCall', event.target.value)}
        />
        <TextField
          id={`${id}-dob`}
          label={RESIDENT_FIELD_LABELS.dateOfBirth}
          type="date"
          max={today()}
          value={values.dateOfBirth}
          onChange={(event) => set('dateOfBirth', event.target.value)}
        />
      </div>
      <FieldFrame id={`${id}-photo`} label={RESIDENT_FIELD_LABELS.photoUrl} error={photoError}>
        <div className="resident-photo-field">
          {resident?.photoUrl && !photo ? <ResidentPhoto resident={resident} size={56} /> : null}
          <Input
            id={`${id}-photo`}
            type="file"
            accept="image/*"
            disabled={offline && !editing}
            aria-describedby={offline ? `${id}-photo-offline` : undefined}
            aria-invalid={photoError ? true : undefined}
            onChange={(event) => choosePhoto(event.target.files?.[0])}
          />
        </div>
        {offline ? (
          <p id={`${id}-photo-offline`} className="field-hint">
            {editing
              ? 'A new photo is kept on this device with your other changes and sent when you are back online.'
              : 'A photo can be added when you are back online.'}
          </p>
        ) : null}
      </FieldFrame>
      <HousePicker value={values.houseTags} onChange={(houses) => set('houseTags', houses)} />
      {RESIDENT_TEXT_FIELDS.map((field) => (
        <FieldFrame key={field} id={`${id}-${field}`} label={RESIDENT_FIELD_LABELS[field]}>
          <Textarea
            id={`${id}-${field}`}
            rows={3}
            maxLength={RESIDENT_TEXT_MAX}
            value={values[field]}
            onChange={(event) => set(field, event.target.value)}
          />
        </FieldFrame>
      ))}
      {offline && !editing ? (
        <Notice tone="warning" role="status">
          A new resident can be added only while online. Please try again when you are back online.
        </Notice>
      ) : null}
      <DialogFooter>
        <Button variant="outline" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" disabled={busy || (offline && !editing)}>
          {busy ? 'Saving...' : editing ? 'Save Changes' : 'Add Resident'}
        </Button>
      </DialogFooter>
    </form>
  );
}
