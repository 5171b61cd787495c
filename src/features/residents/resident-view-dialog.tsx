import { Archive, Pencil } from 'lucide-react';
import { useEffect, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { displayName, formatDate, formatDateTime } from '../../../schema/format';
import { canArchiveResident } from '../../../schema/permissions';
import {
  describeFieldValue,
  RESIDENT_FIELD_LABELS,
  RESIDENT_TEXT_FIELDS,
  type ResidentVersionView,
} from '../../../schema/residents';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogTitle } from '../../components/ui/dialog';
import type { ResidentLocal } from '../../db/collections';
import type { AuthorLookup } from '../../lib/use-authors';
import { useOnline } from '../../lib/use-online';
import { fetchResidentHistory } from './residents-api';
import { ResidentPhoto } from './resident-photo';

interface ResidentViewDialogProps {
  resident: ResidentLocal | null;
  user: CurrentUser;
  authors: AuthorLookup;
  onOpenChange: (open: boolean) => void;
  onEdit: (resident: ResidentLocal) => void;
  onArchive: (resident: ResidentLocal) => void;
}

/** The full profile (docs/behaviour.md, "Residents"): every field, "Created by" with name and date, and the history. */
export function ResidentViewDialog({
  resident,
  user,
  authors,
  onOpenChange,
  onEdit,
  onArchive,
}: ResidentViewDialogProps) {
  return (
    <Dialog open={resident !== null} onOpenChange={onOpenChange}>
      {resident ? (
        <DialogContent className="dialog-wide resident-profile">
          <div className="resident-profile-head">
            <ResidentPhoto resident={resident} size={72} />
            <div>
              <DialogTitle>{resident.name}</DialogTitle>
              <DialogDescription>
                {resident.likeToBeCall ? `Likes to be called ${resident.likeToBeCall}` : 'One Page Profile'}
              </DialogDescription>
            </div>
          </div>
          <dl className="resident-facts">
            <div>
              <dt>{RESIDENT_FIELD_LABELS.dateOfBirth}</dt>
              <dd>{resident.dateOfBirth ? formatDate(`${resident.dateOfBirth}T00:00:00`) : 'Not recorded'}</dd>
            </div>
            <div>
              <dt>{RESIDENT_FIELD_LABELS.houseTags}</dt>
              <dd className="chip-row chip-row-wrap">
                {resident.houseTags.length
                  ? resident.houseTags.map((house) => (
                      <Badge key={house} tone="brand">
                        {house}
                      </Badge>
                    ))
                  : 'None'}
              </dd>
            </div>
          </dl>
          {RESIDENT_TEXT_FIELDS.map((field) => (
            <section key={field} className="resident-section" aria-label={RESIDENT_FIELD_LABELS[field]}>
              <h3>{RESIDENT_FIELD_LABELS[field]}</h3>
              <p className={resident[field] ? 'resident-text' : 'muted'}>{resident[field] || 'Not recorded'}</p>
            </section>
          ))}
          <p className="muted resident-created">
            Created by {authors(resident.createdBy).name} on {formatDate(resident.createdAt)}
          </p>
          <ResidentHistory residentId={resident.id} updatedAt={resident.updatedAt} />
          <DialogFooter>
            {canArchiveResident(user) ? (
              <Button variant="destructive" onClick={() => onArchive(resident)}>
                <Archive aria-hidden size={16} />
                Archive
              </Button>
            ) : null}
            <Button variant="outline" onClick={() => onEdit(resident)}>
              <Pencil aria-hidden size={16} />
              Edit
            </Button>
          </DialogFooter>
        </DialogContent>
      ) : null}
    </Dialog>
  );
}

type HistoryState = { status: 'loading' } | { status: 'error' } | { status: 'ready'; versions: ResidentVersionView[] };

/** The versions of the profile: who changed what, when (read from the server, so only when online). */
function ResidentHistory({ residentId, updatedAt }: { residentId: string; updatedAt: number }) {
  const online = useOnline();
  const [state, setState] = useState<HistoryState>({ status: 'loading' });
  useEffect(() => {
    if (!online) return;
    let live = true;
    fetchResidentHistory(residentId).then(
      (versions) => live && setState({ status: 'ready', versions }),
      () => live && setState({ status: 'error' }),
    );
    return () => {
      live = false;
    };
    // A newer version of the profile arriving through sync reloads the history.
  }, [residentId, updatedAt, online]);

  return (
    <section className="resident-history" aria-labelledby={`history-${residentId}`}>
      <h3 id={`history-${residentId}`}>History</h3>
      {!online ? (
        <p className="muted">The history can be seen when you are back online.</p>
      ) : state.status === 'loading' ? (
        <p className="muted">Loading history...</p>
      ) : state.status === 'error' ? (
        <p className="muted">The history could not be loaded.</p>
      ) : (
        <ol className="resident-versions">
          {state.versions.map((version) => (
            <li key={version.version}>
              <p>
                <strong>{displayName(version.changedBy)}</strong> {ACTION_TEXT[version.action]}{' '}
                <time dateTime={version.changedAt}>{formatDateTime(version.changedAt)}</time>
              </p>
              {version.action === 'update' ? (
                <ul className="resident-changes">
                  {version.changes.map((change) => (
                    <li key={change.field}>
                      {RESIDENT_FIELD_LABELS[change.field]}: {describeFieldValue(change.field, change.from)} →{' '}
                      {describeFieldValue(change.field, change.to)}
                    </li>
                  ))}
                </ul>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

const ACTION_TEXT: Record<ResidentVersionView['action'], string> = {
  create: 'created the profile on',
  update: 'edited the profile on',
  archive: 'archived the profile on',
};
