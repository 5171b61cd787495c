import { TriangleAlert } from 'lucide-react';
import { Button } from '../../components/ui/button';
import { Notice } from '../../components/ui/notice';
import type { ResidentLocal } from '../../db/collections';
import { discardPendingPhoto, type PendingPhoto } from './pending-photos';

/**
 * New photos the server refused (decision 123): each stays on the device, named with the reason, until the user
 * dismisses it, so none is dropped without the user being told.
 */
export function RefusedPhotoNotices({
  photos,
  residents,
}: {
  photos: readonly PendingPhoto[];
  residents: readonly ResidentLocal[];
}) {
  const refused = photos.filter((photo) => photo.error);
  if (refused.length === 0) return null;
  return (
    <section className="resident-merges" aria-label="Photos that were not saved">
      {refused.map((photo) => {
        const name = residents.find((r) => r.id === photo.residentId)?.name ?? 'a resident';
        return (
          <Notice key={photo.id} tone="warning" role="alert" icon={<TriangleAlert aria-hidden size={18} />}>
            <p>
              The new photo of {name} ({photo.name}) was not saved: {photo.error}
            </p>
            <Button variant="outline" size="sm" onClick={() => void discardPendingPhoto(photo.id)}>
              Dismiss
            </Button>
          </Notice>
        );
      })}
    </section>
  );
}
