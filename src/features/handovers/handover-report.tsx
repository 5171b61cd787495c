import { Download } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import type { HandoverReport } from '../../../schema/handovers';
import { formatDate } from '../../../schema/format';
import { buttonClass } from '../../components/ui/button';
import { ALL_HOUSES, HouseFilter, ReportCard } from '../../components/report-card';
import { Input } from '../../components/ui/input';
import { Label } from '../../components/ui/label';
import { api, serverMessageOf } from '../../lib/api';
import './handovers.css';

/** Days the report covers when the page opens: the last week, today included. */
const DEFAULT_DAYS = 7;

type State = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; report: HandoverReport };

/** A day of the device's calendar as YYYY-MM-DD. */
export function localDay(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** The range shown first: the last DEFAULT_DAYS days up to today. */
export function defaultReportRange(now = new Date()): { from: string; to: string } {
  const start = new Date(now.getFullYear(), now.getMonth(), now.getDate() - (DEFAULT_DAYS - 1));
  return { from: localDay(start), to: localDay(now) };
}

/** The query of GET /api/handovers/report and of its CSV (docs/api-handovers.md, "Report"). */
export function handoverReportQuery(house: string, from: string, to: string): string {
  const query = new URLSearchParams({ from, to });
  if (house !== ALL_HOUSES) query.set('house', house);
  return query.toString();
}

/**
 * The "Handover report" on the admin page (admins and system admins, decision 142): per house and day, the notes
 * written and the share read by the next shift, for a range of days, with the CSV of the same figures. Read from the
 * server when shown (not synced data), as the confirmation overview is.
 */
export function HandoverReportCard() {
  const id = useId();
  const [house, setHouse] = useState<string>(ALL_HOUSES);
  const [range, setRange] = useState(defaultReportRange);
  const query = handoverReportQuery(house, range.from, range.to);
  // The answer and the query it is for: another query shows Loading until its own answer.
  const [answer, setAnswer] = useState<{ query: string; state: State } | null>(null);
  const state: State = answer?.query === query ? answer.state : { kind: 'loading' };
  useEffect(() => {
    let live = true;
    // The schemas load with the report: the first screen does not need them (decision 106).
    Promise.all([api.get(`/api/handovers/report?${query}`), import('../../../schema/handovers')])
      .then(([body, { HandoverReportSchema }]) => {
        if (live) setAnswer({ query, state: { kind: 'ready', report: HandoverReportSchema.parse(body) } });
      })
      .catch((error: unknown) => {
        const message = serverMessageOf(error, 'Failed to load the handover report');
        if (live) setAnswer({ query, state: { kind: 'error', message } });
      });
    return () => {
      live = false;
    };
  }, [query]);

  return (
    <ReportCard
      title="Handover report"
      description="Handover notes written per house and day, and the share read by the next shift."
      filters={
        <>
          <HouseFilter value={house} onChange={setHouse} />
          <div className="field">
            <Label htmlFor={`${id}-from`}>From</Label>
            <Input
              id={`${id}-from`}
              type="date"
              value={range.from}
              onChange={(event) => event.target.value && setRange({ ...range, from: event.target.value })}
            />
          </div>
          <div className="field">
            <Label htmlFor={`${id}-to`}>To</Label>
            <Input
              id={`${id}-to`}
              type="date"
              value={range.to}
              onChange={(event) => event.target.value && setRange({ ...range, to: event.target.value })}
            />
          </div>
          <a className={buttonClass('outline', 'sm')} href={`/api/handovers/report.csv?${query}`} download>
            <Download aria-hidden size={16} />
            Download CSV
          </a>
        </>
      }
      state={state}
    >
      {state.kind === 'ready' ? <HandoverReportTable report={state.report} /> : null}
    </ReportCard>
  );
}

/** The report's lines: one per house and day, "Read by the next shift" as reads of those expected and a share. */
export function HandoverReportTable({ report }: { report: HandoverReport }) {
  if (report.rows.length === 0) return <p className="muted">No handover notes in these days.</p>;
  return (
    <table className="handover-report-table">
      <thead>
        <tr>
          <th scope="col">House</th>
          <th scope="col">Day</th>
          <th scope="col">Notes written</th>
          <th scope="col">Read by the next shift</th>
          <th scope="col">Share read</th>
        </tr>
      </thead>
      <tbody>
        {report.rows.map((row) => (
          <tr key={`${row.house}\n${row.day}`}>
            <td>{row.house}</td>
            <td>{formatDate(`${row.day}T12:00:00`)}</td>
            <td>{row.notes}</td>
            <td>
              {row.reads} of {row.expected}
            </td>
            <td>{row.percent === null ? 'No one else on shift' : `${row.percent}%`}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
