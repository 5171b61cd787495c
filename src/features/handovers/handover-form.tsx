import { useState, type FormEvent } from 'react';
import { Button } from '../../components/ui/button';
import { Label } from '../../components/ui/label';
import { Select } from '../../components/ui/select';
import { Textarea } from '../../components/ui/textarea';
import type { ResidentLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { toast } from '../../lib/toast';
import { checkHandoverContent, writeHandoverNote, type ShiftChoice } from './handover-actions';

/**
 * "Write a handover note" (docs/behaviour.md, "Handover"): the shift (the one under way by default), the note and the
 * residents of the house it is about. Saved on the device and sent at once or when the connection returns.
 */
export function HandoverForm({
  db,
  userId,
  house,
  shifts,
  residents,
}: {
  db: UserDatabase;
  userId: string;
  house: string;
  shifts: ShiftChoice;
  residents: readonly ResidentLocal[];
}) {
  // The shift under way until the writer picks one; the screen mounts a new form for each house.
  const [picked, setPicked] = useState<string | null>(null);
  const shift = picked ?? shifts.currentShift;
  const [content, setContent] = useState('');
  const [residentIds, setResidentIds] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkHandoverContent(content);
    if ('error' in checked) return setError(checked.error);
    setSaving(true);
    try {
      await writeHandoverNote(db, userId, { house, shift, content: checked.content, residentIds });
      setContent('');
      setPicked(null);
      setResidentIds([]);
      setError(null);
      toast({
        title: 'Handover note saved',
        description: `Your note for ${house} goes to the next shift now, or as soon as you are back online.`,
      });
    } finally {
      setSaving(false);
    }
  };
  const toggle = (id: string, on: boolean) =>
    setResidentIds((ids) => (on ? [...ids, id] : ids.filter((other) => other !== id)));

  return (
    <form className="card handover-form" onSubmit={(event) => void submit(event)} aria-label="Write a handover note">
      <h2 className="card-title">Write a handover note</h2>
      <div className="handover-form-row">
        <Label htmlFor="handover-shift">Shift</Label>
        <Select
          id="handover-shift"
          value={shift}
          onValueChange={setPicked}
          options={shifts.shifts.map((name) => ({ value: name, label: name }))}
        />
      </div>
      <Label htmlFor="handover-content">Note</Label>
      <Textarea
        id="handover-content"
        value={content}
        rows={4}
        onChange={(event) => setContent(event.target.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'handover-content-error' : undefined}
      />
      {error ? (
        <p id="handover-content-error" className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      {residents.length > 0 ? (
        <fieldset className="handover-residents">
          <legend className="label">Residents (optional)</legend>
          <div className="chip-row chip-row-wrap">
            {residents.map((resident) => {
              const on = residentIds.includes(resident.id);
              return (
                <label key={resident.id} className={on ? 'chip chip-active' : 'chip'}>
                  <input
                    type="checkbox"
                    className="visually-hidden"
                    checked={on}
                    onChange={(event) => toggle(resident.id, event.target.checked)}
                  />
                  {resident.name}
                </label>
              );
            })}
          </div>
        </fieldset>
      ) : null}
      <div>
        <Button type="submit" disabled={saving}>
          Save note
        </Button>
      </div>
    </form>
  );
}
