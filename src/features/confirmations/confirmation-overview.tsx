import { useEffect, useState } from 'react';
import type { ConfirmationOverviewItem } from '../../../schema/confirmations';
import { formatDate } from '../../../schema/format';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { ALL_HOUSES, HouseFilter, ReportCard } from '../../components/report-card';
import { api, serverMessageOf } from '../../lib/api';
import { ConfirmationReportDialog } from './confirmation-report-dialog';
import './confirmations.css';

type State =
  { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; items: ConfirmationOverviewItem[] };

/** GET /api/confirmations with the chosen filters. */
export function overviewPath(house: string, overdueOnly: boolean): string {
  const query = new URLSearchParams();
  if (house !== ALL_HOUSES) query.set('house', house);
  if (overdueOnly) query.set('overdue', '1');
  const search = query.toString();
  return `/api/confirmations${search ? `?${search}` : ''}`;
}

/**
 * Every post requiring confirmation with its percentage, on the Admin Dashboard (admins and system admins), filterable
 * by house and "Overdue only"; each opens its confirmation report (decision 137).
 */
export function ConfirmationOverview() {
  const [house, setHouse] = useState<string>(ALL_HOUSES);
  const [overdueOnly, setOverdueOnly] = useState(false);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [opened, setOpened] = useState<string | null>(null);
  const path = overviewPath(house, overdueOnly);
  useEffect(() => {
    let live = true;
    Promise.all([api.get(path), import('../../../schema/confirmations')])
      .then(
        ([answer, { ConfirmationOverviewItemSchema }]) =>
          live && setState({ kind: 'ready', items: ConfirmationOverviewItemSchema.array().parse(answer) }),
      )
      .catch(
        (error: unknown) =>
          live && setState({ kind: 'error', message: serverMessageOf(error, 'Failed to load confirmations') }),
      );
    return () => {
      live = false;
    };
  }, [path]);

  return (
    <ReportCard
      title="Read and confirm"
      description="Posts that require confirmation, and how many of their audience have confirmed."
      filters={
        <>
          <HouseFilter value={house} onChange={setHouse} />
          <label className="checkbox-row">
            <input type="checkbox" checked={overdueOnly} onChange={(event) => setOverdueOnly(event.target.checked)} />
            Overdue only
          </label>
        </>
      }
      state={state}
    >
      {state.kind === 'ready' && state.items.length === 0 ? (
        <p className="muted">No posts require confirmation{overdueOnly ? ' past their due date' : ''}.</p>
      ) : null}
      {state.kind === 'ready' && state.items.length > 0 ? (
        <table className="confirm-table">
          <thead>
            <tr>
              <th scope="col">Post</th>
              <th scope="col">Due</th>
              <th scope="col">Confirmed</th>
              <th scope="col">Report</th>
            </tr>
          </thead>
          <tbody>
            {state.items.map((item) => (
              <tr key={item.postId}>
                <td>{item.content.length > 80 ? `${item.content.slice(0, 80)}…` : item.content}</td>
                <td>
                  {item.confirmBy ? formatDate(`${item.confirmBy}T12:00:00`) : 'No due date'}
                  {item.overdue ? (
                    <>
                      {' '}
                      <Badge tone="danger">Overdue</Badge>
                    </>
                  ) : null}
                </td>
                <td>
                  {item.percent}% ({item.confirmed} of {item.audience})
                </td>
                <td>
                  <Button variant="outline" size="sm" onClick={() => setOpened(item.postId)}>
                    Confirmation report
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {opened ? <ConfirmationReportDialog postId={opened} onClose={() => setOpened(null)} /> : null}
    </ReportCard>
  );
}
