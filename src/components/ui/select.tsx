import { Check, ChevronDown } from 'lucide-react';
import { Select as SelectPrimitive } from 'radix-ui';
import { useState } from 'react';
import { cx } from '../../lib/cx';

export interface SelectOption<T extends string> {
  value: T;
  label: string;
}

export interface SelectProps<T extends string> {
  /** '' shows the placeholder: nothing chosen yet. */
  value: T | '';
  onValueChange: (value: T) => void;
  options: readonly SelectOption<T>[];
  /** Id of the trigger, for a <Label htmlFor>. */
  id?: string;
  name?: string;
  disabled?: boolean;
  className?: string;
  placeholder?: string;
  'aria-label'?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

/**
 * A list box on radix Select; the value is one of the options' values, or '' before anything is chosen.
 *
 * The options are rendered only while the list is open, and the trigger shows the chosen option's label itself.
 * Closed, radix would otherwise render every option into a detached fragment to find the label, each option
 * registering itself with a synchronous re-render: on the feed, its two closed selects cost a first render
 * dozens of those (decision 101).
 */
export function Select<T extends string>({
  value,
  onValueChange,
  options,
  name,
  disabled,
  className,
  placeholder,
  ...trigger
}: SelectProps<T>) {
  const [open, setOpen] = useState(false);
  const choose = (next: string) => {
    const option = options.find((o) => o.value === next);
    if (option) onValueChange(option.value);
  };
  const chosen = options.find((option) => option.value === value);
  return (
    <SelectPrimitive.Root
      value={value}
      onValueChange={choose}
      name={name}
      disabled={disabled}
      open={open}
      onOpenChange={setOpen}
    >
      <SelectPrimitive.Trigger className={cx('select-trigger', className)} {...trigger}>
        <SelectPrimitive.Value placeholder={placeholder}>{chosen?.label}</SelectPrimitive.Value>
        <SelectPrimitive.Icon className="select-icon">
          <ChevronDown aria-hidden size={16} />
        </SelectPrimitive.Icon>
      </SelectPrimitive.Trigger>
      {open ? <SelectOptions options={options} /> : null}
    </SelectPrimitive.Root>
  );
}

/** The open list of a Select. */
function SelectOptions<T extends string>({ options }: { options: readonly SelectOption<T>[] }) {
  return (
    <SelectPrimitive.Portal>
      <SelectPrimitive.Content className="select-content" position="popper" sideOffset={4}>
        <SelectPrimitive.Viewport className="select-viewport">
          {options.map((option) => (
            <SelectPrimitive.Item key={option.value} value={option.value} className="select-item">
              <SelectPrimitive.ItemText>{option.label}</SelectPrimitive.ItemText>
              <SelectPrimitive.ItemIndicator className="select-item-indicator">
                <Check aria-hidden size={14} />
              </SelectPrimitive.ItemIndicator>
            </SelectPrimitive.Item>
          ))}
        </SelectPrimitive.Viewport>
      </SelectPrimitive.Content>
    </SelectPrimitive.Portal>
  );
}
