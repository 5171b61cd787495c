import { ACCOUNT_TYPES, ACCOUNT_TYPE_LABELS, type AccountType } from '../../../schema/role-rules';
import { FieldFrame, TextField } from '../../components/ui/field';
import { Select } from '../../components/ui/select';

const ACCOUNT_TYPE_OPTIONS = ACCOUNT_TYPES.map((value) => ({ value, label: ACCOUNT_TYPE_LABELS[value] }));

interface AccessFieldsProps {
  /** Prefix of the fields' ids: "add" or "edit". */
  idPrefix: string;
  type: AccountType;
  onTypeChange: (type: AccountType) => void;
  /** A datetime-local value, '' for none. */
  accessEnds: string;
  onAccessEndsChange: (value: string) => void;
  errors: { type?: string; accessEndsAt?: string };
}

/** "Type" and, for bank and agency staff, "Access ends" (decisions 145 and 147); the server checks the limits. */
export function AccessFields({
  idPrefix,
  type,
  onTypeChange,
  accessEnds,
  onAccessEndsChange,
  errors,
}: AccessFieldsProps) {
  return (
    <div className="field-row">
      <FieldFrame id={`${idPrefix}-account-type`} label="Type" error={errors.type}>
        <Select
          id={`${idPrefix}-account-type`}
          value={type}
          onValueChange={onTypeChange}
          options={ACCOUNT_TYPE_OPTIONS}
        />
      </FieldFrame>
      {type === 'employee' ? null : (
        <TextField
          id={`${idPrefix}-access-ends`}
          label="Access ends"
          type="datetime-local"
          required={type === 'agency'}
          value={accessEnds}
          onChange={(e) => onAccessEndsChange(e.target.value)}
          error={errors.accessEndsAt}
          hint={type === 'agency' ? 'Required for agency staff.' : 'Optional for bank staff.'}
        />
      )}
    </div>
  );
}
