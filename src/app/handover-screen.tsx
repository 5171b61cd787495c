import { useMemo, useState, type ReactNode } from 'react';
import type { CurrentUser } from '../../schema/auth';
import { HANDOVER_MESSAGES } from '../../schema/handovers';
import { CopyrightFooter } from '../components/copyright-footer';
import { PageTitle } from '../components/page-title';
import { Label } from '../components/ui/label';
import { Select } from '../components/ui/select';
import { useLocalStore } from '../db/local-store-state';
import { handoverHousesOf } from '../features/handovers/handover-actions';
import { HandoverForm } from '../features/handovers/handover-form';
import { HandoverNote } from '../features/handovers/handover-note';
import { useDirectory, useHandoverNotes, useHandoverOpening, useShifts } from '../features/handovers/use-handovers';
import { residentsInHouse, useResidents } from '../features/residents/use-residents';
import { useAuthors } from '../lib/use-authors';
import { useHouses } from '../lib/use-houses';
import '../features/handovers/handovers.css';
import { AppHeader } from './app-header';

/**
 * /handover: the notes one shift of a house leaves for the next (docs/behaviour.md, "Handover"; decision 140). Read
 * from the local database, so they open offline; notes, addenda and reads are written there and sent.
 */
export function HandoverScreen({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const { users: directory, ready } = useDirectory(store);
  const authors = useAuthors(store, user);
  const { residents } = useResidents(store);
  const allHouses = useHouses();
  const own = useMemo(() => directory.find((person) => person.id === user.id)?.houses ?? [], [directory, user.id]);
  const houses = useMemo(() => handoverHousesOf(user.isAdmin, own, allHouses), [user.isAdmin, own, allHouses]);
  const [picked, setPicked] = useState<string | null>(null);
  const house = picked && houses.includes(picked) ? picked : (houses[0] ?? null);
  const notes = useHandoverNotes(store, house);
  useHandoverOpening(store, user.id, house, notes);
  const shifts = useShifts(house);
  const byId = useMemo(() => new Map(residents.map((resident) => [resident.id, resident])), [residents]);
  const houseResidents = useMemo(() => residentsInHouse(residents, house), [residents, house]);

  let body: ReactNode;
  if (!store || !ready) {
    body = (
      <p className="muted" role="status">
        Loading handover notes...
      </p>
    );
  } else if (!house) {
    body = <p className="empty muted">{HANDOVER_MESSAGES.noHouse}</p>;
  } else {
    body = (
      <>
        {houses.length > 1 ? (
          <div className="handover-filter">
            <Label htmlFor="handover-house">House</Label>
            <Select
              id="handover-house"
              value={house}
              onValueChange={setPicked}
              options={houses.map((h) => ({ value: h, label: h }))}
            />
          </div>
        ) : (
          <p className="muted">{house}</p>
        )}
        {own.includes(house) ? (
          <HandoverForm
            key={house}
            db={store.db}
            userId={user.id}
            house={house}
            shifts={shifts}
            residents={houseResidents}
          />
        ) : (
          <p className="muted">{HANDOVER_MESSAGES.writeForbidden}.</p>
        )}
        {notes.length === 0 ? (
          <p className="empty muted">No handover notes for {house} yet</p>
        ) : (
          <div className="handover-list">
            {notes.map((note) => (
              <HandoverNote
                key={note.id}
                note={note}
                db={store.db}
                userId={user.id}
                isAdmin={user.isAdmin}
                authors={authors}
                directory={directory}
                residents={byId}
              />
            ))}
          </div>
        )}
      </>
    );
  }

  return (
    <div className="app-page">
      <AppHeader user={user} />
      <main className="app-main handover-main">
        <PageTitle title="Handover" subtitle="Notes one shift leaves for the next" />
        {body}
      </main>
      <CopyrightFooter />
    </div>
  );
}
