import { ClipboardCheck, Download } from 'lucide-react';
import { useCallback, useState } from 'react';
import type { ConfirmationReport } from '../../../schema/confirmations';
import { formatDate } from '../../../schema/format';
import { HouseReportGroups, ReportDialog } from '../../components/house-report';
import { Button } from '../../components/ui/button';
import { DialogDescription } from '../../components/ui/dialog';
import { api } from '../../lib/api';
import './confirmations.css';

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
  const path = `/api/posts/${encodeURIComponent(postId)}/confirmations`;
  // The schemas load with the first report asked for: the feed's own code does not need them (decision 106).
  const load = useCallback(
    () =>
      Promise.all([api.get(path), import('../../../schema/confirmations')]).then(
        ([answer, { ConfirmationReportSchema }]) => ConfirmationReportSchema.parse(answer),
      ),
    [path],
  );
  return (
    <ReportDialog
      title="Confirmation report"
      className="confirm-report-dialog"
      load={load}
      failure="Failed to load the confirmation report"
      onClose={onClose}
    >
      {(report: ConfirmationReport) => <ReportBody report={report} csv={`${path}.csv`} />}
    </ReportDialog>
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
      <HouseReportGroups
        groups={report.groups}
        summary={(group) => `${group.confirmed} of ${group.audience} confirmed (${group.percent}%)`}
        doneHeader="Confirmed"
        doneAt={(member) => member.confirmedAt}
      />
    </>
  );
}
