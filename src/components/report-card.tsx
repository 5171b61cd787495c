import { useId, type ReactNode } from 'react';
import { useHouses } from '../lib/use-houses';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from './ui/card';
import { Label } from './ui/label';
import { Select } from './ui/select';

/** The house filter's "All houses": no `house` in the report's query. */
export const ALL_HOUSES = 'all';

/**
 * A report on the Admin Dashboard, read from the server when shown (the confirmation overview, the handover report):
 * its title and what it shows, its filters in a row, then "Loading...", the server's message, or its figures.
 */
export function ReportCard({
  title,
  description,
  filters,
  state,
  children,
}: {
  title: string;
  description: string;
  filters: ReactNode;
  state: { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready' };
  /** The figures, shown once the report is ready. */
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardHeader>
        <CardTitle id={`${id}-title`}>{title}</CardTitle>
        <CardDescription>{description}</CardDescription>
      </CardHeader>
      <CardContent className="stack">
        <div className="report-filters">{filters}</div>
        {state.kind === 'loading' ? <p className="muted">Loading...</p> : null}
        {state.kind === 'error' ? (
          <p className="error-text" role="alert">
            {state.message}
          </p>
        ) : null}
        {state.kind === 'ready' ? children : null}
      </CardContent>
    </Card>
  );
}

/** A report's "House" filter: "All houses" or one of the provider's houses. */
export function HouseFilter({ value, onChange }: { value: string; onChange: (house: string) => void }) {
  const id = useId();
  const houses = useHouses();
  return (
    <div className="field">
      <Label htmlFor={id}>House</Label>
      <Select
        id={id}
        value={value}
        onValueChange={onChange}
        options={[{ value: ALL_HOUSES, label: 'All houses' }, ...houses.map((h) => ({ value: h, label: h }))]}
      />
    </div>
  );
}
