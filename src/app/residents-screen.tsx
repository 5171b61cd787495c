import { Plus } from 'lucide-react';
import { useMemo, useState } from 'react';
import type { CurrentUser } from '../../schema/auth';
import { CopyrightFooter } from '../components/copyright-footer';
import { PageTitle } from '../components/page-title';
import { Badge } from '../components/ui/badge';
import { Button } from '../components/ui/button';
import { Label } from '../components/ui/label';
import { Select } from '../components/ui/select';
import type { ResidentLocal } from '../db/collections';
import { useLocalStore } from '../db/local-store-state';
import { useFeedReady } from '../features/feed/use-feed-data';
import { useAuthors } from '../lib/use-authors';
import { useHouses } from '../lib/use-houses';
import { ArchiveResidentDialog } from '../features/residents/archive-resident-dialog';
import { ResidentCard } from '../features/residents/resident-card';
import { ResidentFormDialog } from '../features/residents/resident-form-dialog';
import { ResidentMergeNotices } from '../features/residents/resident-merge-notices';
import { useWaitingPhotos } from '../features/residents/use-pending-photos';
import { RefusedPhotoNotices } from '../features/residents/waiting-photo-notices';
import { ResidentViewDialog } from '../features/residents/resident-view-dialog';
import { recordResidentView } from '../features/residents/residents-api';
import { residentsInHouse, useResidents } from '../features/residents/use-residents';
import '../features/feed/feed.css';
import '../features/residents/residents.css';
import { AppHeader } from './app-header';

const ALL_HOUSES = 'all';

type FormState = { open: false } | { open: true; resident: ResidentLocal | null };

/**
 * /residents: Residents OPP, One Page Profiles (docs/behaviour.md, "Residents"). Read from the local database, so
 * profiles can be read offline; edits and new photos are saved on the device and sent (decisions 120 and 123); adding
 * and archiving go to the server (decision 50).
 */
export function ResidentsScreen({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const { residents, ready: queried } = useResidents(store);
  const ready = useFeedReady(store, queried, residents.length);
  const authors = useAuthors(store, user);
  const houses = useHouses();
  const waitingPhotos = useWaitingPhotos(store?.userId ?? null);
  const [house, setHouse] = useState<string>(ALL_HOUSES);
  const shown = useMemo(() => residentsInHouse(residents, house === ALL_HOUSES ? null : house), [residents, house]);
  const houseOptions = useMemo(
    () => [{ value: ALL_HOUSES, label: 'All Houses' }, ...houses.map((h) => ({ value: h, label: h }))],
    [houses],
  );

  const [form, setForm] = useState<FormState>({ open: false });
  const [viewingId, setViewingId] = useState<string | null>(null);
  const [archiving, setArchiving] = useState<ResidentLocal | null>(null);
  // A profile archived or gone while open closes with it.
  const viewing = residents.find((resident) => resident.id === viewingId) ?? null;

  const view = (resident: ResidentLocal) => {
    setViewingId(resident.id);
    if (store) void recordResidentView(store.db, resident.id).catch((error: unknown) => console.error(error));
  };
  const edit = (resident: ResidentLocal | null) => setForm({ open: true, resident });
  const refresh = () => store?.sync.resync();

  return (
    <div className="app-page">
      <AppHeader user={user} />
      <main className="app-main residents-main">
        <PageTitle
          title="Residents OPP"
          subtitle="One Page Profiles for our residents"
          actions={
            <Button size="sm" onClick={() => edit(null)}>
              <Plus aria-hidden size={16} />
              Add Resident
            </Button>
          }
        />
        {store ? <ResidentMergeNotices databaseName={store.db.name} residents={residents} /> : null}
        <RefusedPhotoNotices photos={waitingPhotos} residents={residents} />
        <div className="residents-filter">
          <Label htmlFor="resident-house">House</Label>
          <Select id="resident-house" value={house} onValueChange={setHouse} options={houseOptions} />
          <Badge tone="brand" aria-label={`${shown.length} ${shown.length === 1 ? 'resident' : 'residents'} shown`}>
            {shown.length}
          </Badge>
        </div>
        {!ready ? (
          <p className="muted" role="status">
            Loading residents...
          </p>
        ) : residents.length === 0 ? (
          <p className="empty muted">No residents data available</p>
        ) : shown.length === 0 ? (
          <p className="empty muted">No residents in {house}</p>
        ) : (
          <div className="resident-grid">
            {shown.map((resident) => (
              <ResidentCard
                key={resident.id}
                resident={resident}
                photoWaiting={waitingPhotos.some((photo) => photo.residentId === resident.id && !photo.error)}
                onView={() => view(resident)}
                onEdit={() => edit(resident)}
              />
            ))}
          </div>
        )}
      </main>
      <CopyrightFooter />
      <ResidentFormDialog
        resident={form.open ? form.resident : null}
        open={form.open}
        onOpenChange={(open) => setForm(open && form.open ? form : { open: false })}
        onSaved={refresh}
      />
      <ResidentViewDialog
        resident={viewing}
        user={user}
        authors={authors}
        onOpenChange={(open) => !open && setViewingId(null)}
        onEdit={(resident) => {
          setViewingId(null);
          edit(resident);
        }}
        onArchive={setArchiving}
      />
      <ArchiveResidentDialog
        resident={archiving}
        onOpenChange={(open) => !open && setArchiving(null)}
        onArchived={() => {
          setViewingId(null);
          refresh();
        }}
      />
    </div>
  );
}
