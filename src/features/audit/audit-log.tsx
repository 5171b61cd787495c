import { Download, RefreshCw, ScrollText } from 'lucide-react';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { AUDIT_ACTION_LABELS, type AuditEntry } from '../../../schema/audit';
import { formatDateTime } from '../../../schema/format';
import { Button, buttonClass } from '../../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../components/ui/card';
import { Input } from '../../components/ui/input';
import { Label } from '../../components/ui/label';
import { Select, type SelectOption } from '../../components/ui/select';
import { serverMessageOf } from '../../lib/api';
import { auditCsvUrl, fetchAuditPage } from './audit-api';
import { NO_AUDIT_FILTERS, type AuditFilterInput } from './audit-filters';
import './audit.css';
import { EmailAddress } from '../../components/email-address';

const ALL_ACTIONS = 'all';
const ACTION_OPTIONS: SelectOption<string>[] = [
  { value: ALL_ACTIONS, label: 'All actions' },
  ...Object.entries(AUDIT_ACTION_LABELS)
    .map(([value, label]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label)),
];

type State =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'ready'; entries: AuditEntry[]; nextCursor: string | null; loadingMore: boolean };

/** Who acted, as the table shows it: the current name, else the e-mail recorded, else "Unknown". */
function personOf(entry: AuditEntry): string {
  return entry.actor.name ?? entry.actor.email ?? 'Unknown';
}

function targetOf(entry: AuditEntry): string {
  if (!entry.target) return '';
  return entry.target.name ?? `${entry.target.type} ${entry.target.id.slice(0, 8)}`;
}

/** The entries of the current filters, page by page (newest first); answers for older filters are dropped. */
function useAuditEntries(filters: AuditFilterInput) {
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState<{ filters: AuditFilterInput; attempt: number; state: State } | null>(null);
  useEffect(() => {
    let cancelled = false;
    fetchAuditPage(filters)
      .then((page) => {
        if (!cancelled) setResult({ filters, attempt, state: { status: 'ready', ...page, loadingMore: false } });
      })
      .catch((error: unknown) => {
        const message = serverMessageOf(error, 'Could not load the audit log.');
        if (!cancelled) setResult({ filters, attempt, state: { status: 'error', message } });
      });
    return () => {
      cancelled = true;
    };
  }, [filters, attempt]);
  const current = result && result.filters === filters && result.attempt === attempt ? result : null;
  const state: State = current?.state ?? { status: 'loading' };

  const update = (change: (state: State) => State) =>
    setResult((r) => (r && r.filters === filters && r.attempt === attempt ? { ...r, state: change(r.state) } : r));

  const loadMore = () => {
    if (state.status !== 'ready' || !state.nextCursor || state.loadingMore) return;
    update((s) => (s.status === 'ready' ? { ...s, loadingMore: true } : s));
    fetchAuditPage(filters, state.nextCursor)
      .then((page) =>
        update((s) =>
          s.status === 'ready'
            ? {
                status: 'ready',
                entries: [...s.entries, ...page.entries],
                nextCursor: page.nextCursor,
                loadingMore: false,
              }
            : s,
        ),
      )
      .catch((error: unknown) =>
        update(() => ({ status: 'error', message: serverMessageOf(error, 'Could not load the audit log.') })),
      );
  };
  return { state, reload: () => setAttempt((n) => n + 1), loadMore };
}

/**
 * The audit log of the admin page, for System Administrators: sign-ins, failures, admin actions,
 * alert acknowledgements and resident views and changes, newest first, filtered by person, action and dates,
 * and downloadable as CSV. Read-only: nothing here edits or deletes an entry. Closed until asked for, so the
 * admin page does not read the log on every visit.
 */
export function AuditLog() {
  const id = useId();
  const [open, setOpen] = useState(false);
  return (
    <Card aria-labelledby={`${id}-title`}>
      <CardHeader className="audit-header">
        <div>
          <CardTitle id={`${id}-title`}>
            <ScrollText aria-hidden size={20} />
            Audit Log
          </CardTitle>
          <CardDescription>Who did what and when. Entries cannot be changed or deleted.</CardDescription>
        </div>
        <Button
          variant="outline"
          size="sm"
          aria-expanded={open}
          aria-controls={`${id}-body`}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Hide Audit Log' : 'Show Audit Log'}
        </Button>
      </CardHeader>
      {open ? (
        <CardContent id={`${id}-body`} className="stack">
          <AuditLogBody />
        </CardContent>
      ) : null}
    </Card>
  );
}

/** The filters, the entries and the CSV link; mounted (and loaded) only while the section is open. */
function AuditLogBody() {
  const id = useId();
  const [draft, setDraft] = useState<AuditFilterInput>(NO_AUDIT_FILTERS);
  const [filters, setFilters] = useState<AuditFilterInput>(NO_AUDIT_FILTERS);
  const { state, reload, loadMore } = useAuditEntries(filters);

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters({ ...draft });
  };
  const clear = () => {
    setDraft(NO_AUDIT_FILTERS);
    setFilters(NO_AUDIT_FILTERS);
  };

  return (
    <>
      <form className="audit-filters" onSubmit={apply} aria-label="Filter the audit log">
        <div className="field">
          <Label htmlFor={`${id}-person`}>Person</Label>
          <Input
            id={`${id}-person`}
            value={draft.person}
            placeholder="Name or e-mail"
            onChange={(event) => setDraft({ ...draft, person: event.target.value })}
          />
        </div>
        <div className="field">
          <Label htmlFor={`${id}-action`}>Action</Label>
          <Select
            id={`${id}-action`}
            value={draft.action || ALL_ACTIONS}
            options={ACTION_OPTIONS}
            onValueChange={(action) => setDraft({ ...draft, action: action === ALL_ACTIONS ? '' : action })}
          />
        </div>
        <div className="field">
          <Label htmlFor={`${id}-from`}>From</Label>
          <Input
            id={`${id}-from`}
            type="date"
            value={draft.fromDay}
            onChange={(event) => setDraft({ ...draft, fromDay: event.target.value })}
          />
        </div>
        <div className="field">
          <Label htmlFor={`${id}-to`}>To</Label>
          <Input
            id={`${id}-to`}
            type="date"
            value={draft.toDay}
            onChange={(event) => setDraft({ ...draft, toDay: event.target.value })}
          />
        </div>
        <div className="audit-filter-actions">
          <Button type="submit" size="sm">
            Apply Filters
          </Button>
          <Button variant="outline" size="sm" onClick={clear}>
            Clear
          </Button>
          <a className={buttonClass('outline', 'sm')} href={auditCsvUrl(filters)} download>
            <Download aria-hidden size={16} />
            Download CSV
          </a>
        </div>
      </form>

      {state.status === 'loading' ? <p className="muted">Loading audit log...</p> : null}
      {state.status === 'error' ? (
        <div className="stack">
          <p className="error-text" role="alert">{`Error: ${state.message}`}</p>
          <div>
            <Button variant="outline" onClick={reload}>
              <RefreshCw aria-hidden size={16} />
              Retry
            </Button>
          </div>
        </div>
      ) : null}
      {state.status === 'ready' && state.entries.length === 0 ? (
        <p className="muted empty">No audit entries match these filters.</p>
      ) : null}
      {state.status === 'ready' && state.entries.length > 0 ? (
        <>
          <div className="audit-table-wrap">
            <table className="audit-table">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Person</th>
                  <th scope="col">Action</th>
                  <th scope="col">About</th>
                  <th scope="col">Address</th>
                </tr>
              </thead>
              <tbody>
                {state.entries.map((entry) => (
                  <tr key={entry.id}>
                    <td>
                      <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                    </td>
                    <td>
                      <span className="audit-person">{personOf(entry)}</span>
                      {entry.actor.name && entry.actor.email ? (
                        <span className="audit-email muted">
                          <EmailAddress email={entry.actor.email} />
                        </span>
                      ) : null}
                    </td>
                    <td title={entry.action}>{entry.actionLabel}</td>
                    <td>{targetOf(entry)}</td>
                    <td className="audit-ip">{entry.ip ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {state.nextCursor ? (
            <div>
              <Button variant="outline" size="sm" onClick={loadMore} disabled={state.loadingMore}>
                {state.loadingMore ? 'Loading...' : 'Load More'}
              </Button>
            </div>
          ) : null}
        </>
      ) : null}
    </>
  );
}
