import { Eye, EyeOff } from 'lucide-react';
import { useState, type ComponentProps, type ReactNode } from 'react';
import { cx } from '../../lib/cx';
import { Input } from './input';
import { Label } from './label';

interface FieldFrameProps {
  id: string;
  label: string;
  error?: string;
  hint?: ReactNode;
  children: ReactNode;
  className?: string;
}

/** Ids of the hint and error lines of a field, for aria-describedby. */
export function describedBy(id: string, error?: string, hint?: ReactNode): string | undefined {
  return [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
}

/** Label above, control, then an optional hint and the validation message under the field. */
export function FieldFrame({ id, label, error, hint, children, className }: FieldFrameProps) {
  return (
    <div className={cx('field', className)}>
      <Label htmlFor={id}>{label}</Label>
      {children}
      {hint ? (
        <div id={`${id}-hint`} className="field-hint">
          {hint}
        </div>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export interface TextFieldProps extends Omit<ComponentProps<'input'>, 'id'> {
  id: string;
  label: string;
  error?: string;
  hint?: ReactNode;
}

export function TextField({ id, label, error, hint, className, ...inputProps }: TextFieldProps) {
  return (
    <FieldFrame id={id} label={label} error={error} hint={hint} className={className}>
      <Input
        id={id}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy(id, error, hint)}
        {...inputProps}
      />
    </FieldFrame>
  );
}

/** A password input with a show/hide toggle (docs/behaviour.md, "Screens and routes"). */
export function PasswordField({ id, label, error, hint, className, ...inputProps }: TextFieldProps) {
  const [visible, setVisible] = useState(false);
  return (
    <FieldFrame id={id} label={label} error={error} hint={hint} className={className}>
      <div className="input-with-action">
        <Input
          id={id}
          type={visible ? 'text' : 'password'}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy(id, error, hint)}
          {...inputProps}
        />
        {/* Named "Show"/"Hide" so the field's own label stays the only element called "Password". */}
        <button
          type="button"
          className="input-action"
          aria-label={visible ? 'Hide' : 'Show'}
          aria-controls={id}
          title={visible ? 'Hide password' : 'Show password'}
          onClick={() => setVisible((v) => !v)}
        >
          {visible ? <EyeOff aria-hidden size={18} /> : <Eye aria-hidden size={18} />}
        </button>
      </div>
    </FieldFrame>
  );
}
