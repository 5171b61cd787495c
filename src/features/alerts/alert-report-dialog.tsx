import { ClipboardCheck, Download } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { AlertReport } from '../../../schema/alerts';
import { displayName } from '../../../schema/format';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { WrittenTime } from '../../components/written-time';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '../../components/ui/dialog';
import { api, serverMessageOf } from '../../lib/api';
import { formatDuration } from './alert-list';
import './alerts.css';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; report: AlertReport };

/**
 * The acknowledgement report of an urgent post (admins and system admins): who has acknowledged it
 * and when, who has not, by house, with the time each took, and the CSV export.
 */
export function AlertReportButton({ postId }: { postId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="outline" size="sm" className="report-open" onClick={() => setOpen(true)}>
        <ClipboardCheck aria-hidden size={16} />
        Acknowledgements
      </Button>
      {open ? <AlertReportDialog postId={postId} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function AlertReportDialog({ postId, onClose }: { postId: string; onClose: () => void }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const path = `/api/alerts/${encodeURIComponent(postId)}/report`;
  useEffect(() => {
    let live = true;
    // The alerts schemas load with the first report asked for: the feed's own code does not need them (decision 106).
    Promise.all([api.get(path), import('../../../schema/alerts')])
      .then(
        ([answer, { AlertReportSchema }]) =>
          live && setState({ kind: 'ready', report: AlertReportSchema.parse(answer) }),
      )
      .catch(
        (error: unknown) =>
          live && setState({ kind: 'error', message: serverMessageOf(error, 'Failed to load acknowledgements') }),
      );
    return () => {
      live = false;
    };
  }, [path]);

  return (
    <Dialog open onOpenChange={(next) => !next && onClose()}>
      <DialogContent className="report-dialog">
        <DialogTitle>Acknowledgements</DialogTitle>
        {state.kind === 'loading' ? (
          <DialogDescription>Loading...</DialogDescription>
        ) : state.kind === 'error' ? (
          <DialogDescription role="alert">{state.message}</DialogDescription>
        ) : (
          <>
            <DialogDescription>
              {state.report.totals.acknowledged} of {state.report.totals.audience} acknowledged,{' '}
              {state.report.totals.pending} pending ·{' '}
              {state.report.post.audienceHouses.length > 0 ? state.report.post.audienceHouses.join(', ') : 'All staff'}
            </DialogDescription>
            <a className="btn btn-outline btn-sm report-export" href={`${path}.csv`} download>
              <Download aria-hidden size={16} />
              Export CSV
            </a>
            <div className="report-groups">
              {state.report.groups.map((group) => (
                <section key={group.house} className="report-group" aria-label={group.house}>
                  <h3 className="report-house">
                    {group.house}
                    <span className="muted">
                      {group.acknowledged} acknowledged · {group.pending} pending
                    </span>
                  </h3>
                  <table className="report-table">
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Acknowledged</th>
                        <th scope="col">Time taken</th>
                      </tr>
                    </thead>
                    <tbody>
                      {group.members.map((member) => (
                        <tr key={member.userId}>
                          <td>
                            {displayName(member)}
                            {member.isActive ? null : <span className="muted"> (inactive)</span>}
                          </td>
                          <td>
                            {member.acknowledgedAt ? (
                              <WrittenTime
                                writtenAt={Date.parse(member.acknowledgedAt)}
                                arrivedAt={Date.parse(member.receivedAt ?? member.acknowledgedAt)}
                                pending={false}
                                dated
                              />
                            ) : (
                              <Badge tone="warning">Not yet</Badge>
                            )}
                          </td>
                          <td>
                            {member.secondsToAcknowledge === null ? '-' : formatDuration(member.secondsToAcknowledge)}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </section>
              ))}
            </div>
          </>
        )}
      </DialogContent>
    </Dialog>
  );
}
