import { useId } from 'react';
import { HousePicker } from '../../components/house-picker';

/** Who an urgent post alerts: all staff, or only the staff of the chosen houses (decision 33). */
export interface AlertAudience {
  audience: 'all' | 'houses';
  houses: string[];
}

export const ALL_STAFF: AlertAudience = { audience: 'all', houses: [] };

/** The audience a stored post's `audienceHouses` stands for: none chosen means all staff. */
export function audienceOf(audienceHouses: readonly string[]): AlertAudience {
  return audienceHouses.length > 0 ? { audience: 'houses', houses: [...audienceHouses] } : ALL_STAFF;
}

/** The `audienceHouses` to store: empty for all staff and for a post that is not urgent. */
export function audienceHousesOf(isUrgent: boolean, value: AlertAudience): string[] {
  return isUrgent && value.audience === 'houses' ? value.houses : [];
}

/** The "Alert audience" control of an urgent post, in the composer and the edit dialog. */
export function AlertAudiencePicker({
  value,
  onChange,
  disabled,
}: {
  value: AlertAudience;
  onChange: (value: AlertAudience) => void;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <fieldset className="composer-audience" disabled={disabled}>
      <legend className="label">Alert audience</legend>
      <div className="chip-row">
        {(
          [
            ['all', 'All staff'],
            ['houses', 'Chosen houses'],
          ] as const
        ).map(([audience, label]) => (
          <label key={audience} className={value.audience === audience ? 'chip chip-active' : 'chip'}>
            <input
              type="radio"
              className="visually-hidden"
              name={`${id}-audience`}
              checked={value.audience === audience}
              onChange={() => onChange({ ...value, audience })}
            />
            {label}
          </label>
        ))}
      </div>
      {value.audience === 'houses' ? (
        <HousePicker value={value.houses} onChange={(houses) => onChange({ ...value, houses })} legend="Alert houses" />
      ) : null}
    </fieldset>
  );
}
