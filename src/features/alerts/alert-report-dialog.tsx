import { ClipboardCheck, Download } from 'lucide-react';
import { useCallback, useState } from 'react';
import type { AlertReport } from '../../../schema/alerts';
import { HouseReportGroups, ReportDialog } from '../../components/house-report';
import { Button } from '../../components/ui/button';
import { DialogDescription } from '../../components/ui/dialog';
import { api } from '../../lib/api';
import { formatDuration } from './alert-list';
import './alerts.css';

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
  const path = `/api/alerts/${encodeURIComponent(postId)}/report`;
  // The alerts schemas load with the first report asked for: the feed's own code does not need them (decision 106).
  const load = useCallback(
    () =>
      Promise.all([api.get(path), import('../../../schema/alerts')]).then(([answer, { AlertReportSchema }]) =>
        AlertReportSchema.parse(answer),
      ),
    [path],
  );
  return (
    <ReportDialog
      title="Acknowledgements"
      className="report-dialog"
      load={load}
      failure="Failed to load acknowledgements"
      onClose={onClose}
    >
      {(report: AlertReport) => (
        <>
          <DialogDescription>
            {report.totals.acknowledged} of {report.totals.audience} acknowledged, {report.totals.pending} pending ·{' '}
            {report.post.audienceHouses.length > 0 ? report.post.audienceHouses.join(', ') : 'All staff'}
          </DialogDescription>
          <a className="btn btn-outline btn-sm report-export" href={`${path}.csv`} download>
            <Download aria-hidden size={16} />
            Export CSV
          </a>
          <HouseReportGroups
            groups={report.groups}
            summary={(group) => `${group.acknowledged} acknowledged · ${group.pending} pending`}
            doneHeader="Acknowledged"
            doneAt={(member) => member.acknowledgedAt}
            extra={{
              header: 'Time taken',
              cell: (member) =>
                member.secondsToAcknowledge === null ? '-' : formatDuration(member.secondsToAcknowledge),
            }}
          />
        </>
      )}
    </ReportDialog>
  );
}
