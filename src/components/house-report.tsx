import { useEffect, useState, type ReactNode } from 'react';
import { displayName } from '../../schema/format';
import { serverMessageOf } from '../lib/api';
import { Badge } from './ui/badge';
import { Dialog, DialogContent, DialogDescription, DialogTitle } from './ui/dialog';
import { WrittenTime } from './written-time';

type State<R> = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; report: R };

/** A report read from the server when its dialog opens (reports are not synced data): loading, its error, or it. */
export function ReportDialog<R>({
  title,
  className,
  load,
  failure,
  onClose,
  children,
}: {
  title: string;
  className: string;
  /** Reads and parses the report; called again when it changes, so pass a stable function. */
  load: () => Promise<R>;
  /** The message when the server gives none. */
  failure: string;
  onClose: () => void;
  children: (report: R) => ReactNode;
}) {
  const [state, setState] = useState<State<R>>({ kind: 'loading' });
  useEffect(() => {
    let live = true;
    load().then(
      (report) => live && setState({ kind: 'ready', report }),
      (error: unknown) => live && setState({ kind: 'error', message: serverMessageOf(error, failure) }),
    );
    return () => {
      live = false;
    };
  }, [load, failure]);
  return (
    <Dialog open onOpenChange={(next) => !next && onClose()}>
      <DialogContent className={className}>
        <DialogTitle>{title}</DialogTitle>
        {state.kind === 'loading' ? (
          <DialogDescription>Loading...</DialogDescription>
        ) : state.kind === 'error' ? (
          <DialogDescription role="alert">{state.message}</DialogDescription>
        ) : (
          children(state.report)
        )}
      </DialogContent>
    </Dialog>
  );
}

/** One member of a report's audience: who, whether still active, and when what they did reached the server. */
export interface HouseReportMember {
  userId: string;
  firstName: string;
  lastName: string;
  isActive: boolean;
  receivedAt: string | null;
}

/**
 * A report's audience by house (alert acknowledgements, read-and-confirm): per house its summary and a table of who
 * did it and when (the device's time, with its arrival), and who has not yet.
 */
export function HouseReportGroups<G extends { house: string; members: readonly HouseReportMember[] }>({
  groups,
  summary,
  doneHeader,
  doneAt,
  extra,
}: {
  groups: readonly G[];
  summary: (group: G) => ReactNode;
  doneHeader: string;
  doneAt: (member: G['members'][number]) => string | null;
  extra?: { header: string; cell: (member: G['members'][number]) => ReactNode };
}) {
  return (
    <div className="report-groups">
      {groups.map((group) => (
        <section key={group.house} className="report-group" aria-label={group.house}>
          <h3 className="report-house">
            {group.house}
            <span className="muted">{summary(group)}</span>
          </h3>
          <table className="report-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">{doneHeader}</th>
                {extra ? <th scope="col">{extra.header}</th> : null}
              </tr>
            </thead>
            <tbody>
              {group.members.map((member) => {
                const at = doneAt(member);
                return (
                  <tr key={member.userId}>
                    <td>
                      {displayName(member)}
                      {member.isActive ? null : <span className="muted"> (inactive)</span>}
                    </td>
                    <td>
                      {at ? (
                        <WrittenTime
                          writtenAt={Date.parse(at)}
                          arrivedAt={Date.parse(member.receivedAt ?? at)}
                          pending={false}
                          dated
                        />
                      ) : (
                        <Badge tone="warning">Not yet</Badge>
                      )}
                    </td>
                    {extra ? <td>{extra.cell(member)}</td> : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      ))}
    </div>
  );
}
