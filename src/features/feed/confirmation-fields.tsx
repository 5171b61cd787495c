import { useId } from 'react';
import { Input } from '../../components/ui/input';
import { Label } from '../../components/ui/label';
import { Switch } from '../../components/ui/switch';

/** Whether a post asks its audience to confirm they have read it, and by when (decision 136). */
export interface ConfirmationChoice {
  required: boolean;
  /** YYYY-MM-DD, or '' for no due date. */
  confirmBy: string;
}

export const NO_CONFIRMATION: ConfirmationChoice = { required: false, confirmBy: '' };

/** The choice a stored post stands for. */
export function confirmationOfPost(post: { requiresConfirmation?: boolean; confirmBy?: string | null }) {
  return { required: post.requiresConfirmation === true, confirmBy: post.confirmBy ?? '' };
}

/** What to store: no due date without confirmation, null for an empty date. */
export function storedConfirmation(choice: ConfirmationChoice) {
  return { requiresConfirmation: choice.required, confirmBy: choice.required ? choice.confirmBy || null : null };
}

/** The "Requires confirmation" switch and its optional due date, in the composer and the edit dialog (admins only). */
export function ConfirmationFields({
  value,
  onChange,
  disabled,
}: {
  value: ConfirmationChoice;
  onChange: (value: ConfirmationChoice) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="composer-confirm">
      <div className="composer-urgent">
        <Switch
          id={`${id}-confirm`}
          checked={value.required}
          onCheckedChange={(required) => onChange({ ...value, required })}
          disabled={disabled}
        />
        <Label htmlFor={`${id}-confirm`}>Requires confirmation</Label>
      </div>
      {value.required ? (
        <div className="composer-field composer-confirm-by">
          <Label htmlFor={`${id}-by`}>Confirm by (optional)</Label>
          <Input
            id={`${id}-by`}
            type="date"
            value={value.confirmBy}
            onChange={(event) => onChange({ ...value, confirmBy: event.target.value })}
            disabled={disabled}
          />
        </div>
      ) : null}
    </div>
  );
}
