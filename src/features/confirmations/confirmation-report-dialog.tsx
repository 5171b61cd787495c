import { ClipboardCheck, Download } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { ConfirmationReport } from '../../../schema/confirmations';
import { displayName, formatDate } from '../../../schema/format';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '../../components/ui/dialog';
import { WrittenTime } from '../../components/written-time';
import { api, serverMessageOf } from '../../lib/api';
import './confirmations.css';

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; report: ConfirmationReport };

/**
 * The "Confirmation report" of a post requiring confirmation (admins and system admins), as the alert report is: by
 * house, who has confirmed and when, who has not, the percentage, and the CSV download.
 */
export function ConfirmationReportButton({ postId }: { postId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button variant="outline" size="sm" className="report-open" onClick={() => setOpen(true)}>
        <ClipboardCheck aria-hidden size={16} />
        Confirmation report
      </Button>
      {open ? <ConfirmationReportDialog postId={postId} onClose={() => setOpen(false)} /> : null}
    </>
  );
}

/** The report itself, loaded when opened (it is not synced data: GET /api/posts/{id}/confirmations). */
export function ConfirmationReportDialog({ postId, onClose }: { postId: string; onClose: () => void }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const path = `/api/posts/${encodeURIComponent(postId)}/confirmations`;
  useEffect(() => {
    let live = true;
    // The schemas load with the first report asked for: the feed's own code does not need them (decision 106).
    Promise.all([api.get(path), import('../../../schema/confirmations')])
      .then(
        ([answer, { ConfirmationReportSchema }]) =>
          live && setState({ kind: 'ready', report: ConfirmationReportSchema.parse(answer) }),
      )
      .catch(
        (error: unknown) =>
          live &&
          setState({ kind: 'error', message: serverMessageOf(error, 'Failed to load the confirmation report') }),
      );
    return () => {
      live = false;
    };
  }, [path]);

  return (
    <Dialog open onOpenChange={(next) => !next && onClose()}>
      <DialogContent className="confirm-report-dialog">
        <DialogTitle>Confirmation report</DialogTitle>
        {state.kind === 'loading' ? (
          <DialogDescription>Loading...</DialogDescription>
        ) : state.kind === 'error' ? (
          <DialogDescription role="alert">{state.message}</DialogDescription>
        ) : (
          <ReportBody report={state.report} csv={`${path}.csv`} />
        )}
      </DialogContent>
    </Dialog>
  );
}

function ReportBody({ report, csv }: { report: ConfirmationReport; csv: string }) {
  const { totals, post } = report;
  return (
    <>
      <DialogDescription>
        {totals.confirmed} of {totals.audience} confirmed ({totals.percent}%), {totals.pending} pending ·{' '}
        {post.audienceHouses.length > 0 ? post.audienceHouses.join(', ') : 'All staff'}
        {post.confirmBy ? ` · due ${formatDate(`${post.confirmBy}T12:00:00`)}` : ''}
      </DialogDescription>
      <a className="btn btn-outline btn-sm report-export" href={csv} download>
        <Download aria-hidden size={16} />
        Download CSV
      </a>
      <div className="report-groups">
        {report.groups.map((group) => (
          <section key={group.house} className="report-group" aria-label={group.house}>
            <h3 className="report-house">
              {group.house}
              <span className="muted">
                {group.confirmed} of {group.audience} confirmed ({group.percent}%)
              </span>
            </h3>
            <table className="report-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Confirmed</th>
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
                      {member.confirmedAt ? (
                        <WrittenTime
                          writtenAt={Date.parse(member.confirmedAt)}
                          arrivedAt={Date.parse(member.receivedAt ?? member.confirmedAt)}
                          pending={false}
                          dated
                        />
                      ) : (
                        <Badge tone="warning">Not yet</Badge>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        ))}
      </div>
    </>
  );
}
