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

/**
 * The `audienceHouses` to store: empty for all staff and for a post that addresses no one (neither urgent nor requiring
 * confirmation, decision 137).
 */
export function audienceHousesOf(addressed: boolean, value: AlertAudience): string[] {
  return addressed && value.audience === 'houses' ? value.houses : [];
}

/**
 * The audience control of an urgent post or one requiring confirmation, in the composer and the edit dialog: "Alert
 * audience" while the post is urgent, else "Audience".
 */
export function AlertAudiencePicker({
  value,
  onChange,
  disabled,
  urgent = true,
}: {
  value: AlertAudience;
  onChange: (value: AlertAudience) => void;
  disabled?: boolean;
  urgent?: boolean;
}) {
  const id = useId();
  return (
    <fieldset className="composer-audience" disabled={disabled}>
      <legend className="label">{urgent ? 'Alert audience' : 'Audience'}</legend>
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
        <HousePicker
          value={value.houses}
          onChange={(houses) => onChange({ ...value, houses })}
          legend={urgent ? 'Alert houses' : 'Houses asked'}
        />
      ) : null}
    </fieldset>
  );
}
