import { Eye, Pencil } from 'lucide-react';
import { formatDate } from '../../../schema/format';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { Card } from '../../components/ui/card';
import type { ResidentLocal } from '../../db/collections';
import { ResidentPhoto } from './resident-photo';

interface ResidentCardProps {
  resident: ResidentLocal;
  /** A new photo chosen on this device waits to be sent (decision 123). */
  photoWaiting?: boolean;
  onView: () => void;
  onEdit: () => void;
}

/** One resident in the grid (docs/behaviour.md, "Residents"): photo, name, houses, a view button and an edit button. */
export function ResidentCard({ resident, photoWaiting = false, onView, onEdit }: ResidentCardProps) {
  return (
    <Card className="resident-card" aria-label={resident.name}>
      <div className="resident-card-head">
        <ResidentPhoto resident={resident} size={56} />
        <div className="resident-card-name">
          <h2>{resident.name}</h2>
          {resident.likeToBeCall ? <p className="muted">Likes to be called {resident.likeToBeCall}</p> : null}
          {resident.dateOfBirth ? <p className="muted">Born {formatDate(`${resident.dateOfBirth}T00:00:00`)}</p> : null}
          {photoWaiting ? <p className="muted">New photo waiting to be sent</p> : null}
        </div>
      </div>
      {resident.houseTags.length ? (
        <div className="chip-row chip-row-wrap">
          {resident.houseTags.map((house) => (
            <Badge key={house} tone="brand">
              {house}
            </Badge>
          ))}
        </div>
      ) : null}
      <div className="resident-card-actions">
        <Button variant="outline" size="sm" onClick={onView} aria-label={`View ${resident.name}`}>
          <Eye aria-hidden size={16} />
          View
        </Button>
        <Button variant="outline" size="sm" onClick={onEdit} aria-label={`Edit ${resident.name}`}>
          <Pencil aria-hidden size={16} />
          Edit
        </Button>
      </div>
    </Card>
  );
}
