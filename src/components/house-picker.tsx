import { Check } from 'lucide-react';
import { useHouses } from '../lib/use-houses';

/**
 * Multi-select of the ten houses, as checkable chips (only for Residents Activities;
 * docs/behaviour.md, "Posts and categories").
 */
export function HousePicker({
  value,
  onChange,
  disabled,
  legend = 'Houses',
}: {
  value: readonly string[];
  onChange: (houses: string[]) => void;
  disabled?: boolean;
  legend?: string;
}) {
  const houses = useHouses();
  const toggle = (house: string, on: boolean) => onChange(on ? [...value, house] : value.filter((h) => h !== house));
  return (
    <fieldset className="house-picker" disabled={disabled}>
      <legend className="label">{legend}</legend>
      <div className="chip-row chip-row-wrap">
        {houses.map((house) => {
          const on = value.includes(house);
          return (
            <label key={house} className={on ? 'chip chip-active' : 'chip'}>
              <input
                type="checkbox"
                className="visually-hidden"
                checked={on}
                onChange={(event) => toggle(house, event.target.checked)}
              />
              {on ? <Check aria-hidden size={14} /> : null}
              {house}
            </label>
          );
        })}
      </div>
    </fieldset>
  );
}
