import { useState } from 'react';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import { Textarea } from '../../components/ui/textarea';
import { WrittenTime } from '../../components/written-time';
import type { DirectoryUserLocal, HandoverLocal, ResidentLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { serverMessageOf } from '../../lib/api';
import type { AuthorLookup } from '../../lib/use-authors';
import { useOnline } from '../../lib/use-online';
import { toast } from '../../lib/toast';
import {
  addHandoverAddendum,
  canCorrect,
  checkHandoverContent,
  correctHandover,
  hideHandover,
  markHandoverRead,
  readSummaryOf,
} from './handover-actions';

type Editing = { kind: 'none' } | { kind: 'addendum' | 'correction'; text: string; error: string | null };

/** Who "Read by N of M on shift" counts, shown when it is tapped. */
function ReadBy({ note, directory, userId }: { note: HandoverLocal; directory: DirectoryUserLocal[]; userId: string }) {
  const [open, setOpen] = useState(false);
  const { onShift, readCount } = readSummaryOf(note, directory, userId);
  return (
    <div className="handover-reads">
      <Button variant="link" size="sm" aria-expanded={open} onClick={() => setOpen(!open)}>
        {`Read by ${readCount} of ${onShift.length} on shift`}
      </Button>
      {open ? (
        <ul className="handover-readers">
          {onShift.map(({ user, readAt }) => (
            <li key={user.id}>
              {user.firstName} {user.lastName}: {readAt === null ? 'not yet' : 'read'}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * One handover note (docs/behaviour.md, "Handover"): shift, author, time, residents, addenda, who has read it, and what
 * the user may do with it. Reads and addenda are saved on the device; corrections and hiding go to the server.
 */
export function HandoverNote({
  note,
  db,
  userId,
  isAdmin,
  authors,
  directory,
  residents,
}: {
  note: HandoverLocal;
  db: UserDatabase;
  userId: string;
  isAdmin: boolean;
  authors: AuthorLookup;
  directory: DirectoryUserLocal[];
  residents: ReadonlyMap<string, ResidentLocal>;
}) {
  const online = useOnline();
  const [editing, setEditing] = useState<Editing>({ kind: 'none' });
  const named = note.residentIds.map((id) => residents.get(id)?.name ?? 'A former resident');
  const heading = `${note.shift} shift, ${authors(note.authorId).name}`;

  const save = async () => {
    if (editing.kind === 'none') return;
    const checked = checkHandoverContent(editing.text);
    if ('error' in checked) return setEditing({ ...editing, error: checked.error });
    try {
      if (editing.kind === 'addendum') await addHandoverAddendum(db, userId, note.id, checked.content);
      else await correctHandover(note.id, checked.content);
      setEditing({ kind: 'none' });
    } catch (error) {
      setEditing({ ...editing, error: serverMessageOf(error, 'The note could not be corrected. Please try again.') });
    }
  };
  const hide = async () => {
    try {
      await hideHandover(note.id);
    } catch (error) {
      toast({ title: 'Not hidden', description: serverMessageOf(error, 'Please try again.'), variant: 'destructive' });
    }
  };

  return (
    <article className="card handover-note" aria-label={heading}>
      <header className="handover-note-head">
        <Badge tone="brand">{note.shift}</Badge>
        <strong>{authors(note.authorId).name}</strong>
        <WrittenTime writtenAt={note.writtenAt} arrivedAt={note.createdAt} pending={note.localPending} dated />
        {note.correctedAt !== null ? <Badge>Corrected</Badge> : null}
        {note.hidden ? <Badge tone="danger">Hidden from staff</Badge> : null}
        {note.localPending ? <Badge tone="warning">Waiting to be sent</Badge> : null}
      </header>
      <p className="handover-content">{note.content}</p>
      {named.length > 0 ? <p className="muted">Residents: {named.join(', ')}</p> : null}
      {note.addenda.length > 0 ? (
        <ul className="handover-addenda" aria-label="Addenda">
          {note.addenda.map((addendum) => (
            <li key={addendum.id}>
              <span className="muted">
                {authors(addendum.authorId).name},{' '}
                <WrittenTime writtenAt={addendum.writtenAt} arrivedAt={addendum.createdAt} pending={false} dated />
              </span>
              <p className="handover-content">{addendum.content}</p>
            </li>
          ))}
        </ul>
      ) : null}
      <ReadBy note={note} directory={directory} userId={userId} />
      {editing.kind !== 'none' ? (
        <div className="handover-edit">
          <Textarea
            aria-label={editing.kind === 'addendum' ? 'Addendum' : 'Corrected note'}
            value={editing.text}
            rows={3}
            onChange={(event) => setEditing({ ...editing, text: event.target.value, error: null })}
          />
          {editing.error ? (
            <p className="field-error" role="alert">
              {editing.error}
            </p>
          ) : null}
          <div className="handover-actions">
            <Button size="sm" onClick={() => void save()}>
              {editing.kind === 'addendum' ? 'Add' : 'Save correction'}
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setEditing({ kind: 'none' })}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        <div className="handover-actions">
          {note.authorId !== userId && note.readAt === null && !note.reads.some((read) => read.userId === userId) ? (
            <Button size="sm" onClick={() => void markHandoverRead(db, note.id)}>
              Mark as read
            </Button>
          ) : null}
          <Button size="sm" variant="outline" onClick={() => setEditing({ kind: 'addendum', text: '', error: null })}>
            Add to this note
          </Button>
          {canCorrect(note, userId) ? (
            <Button
              size="sm"
              variant="outline"
              onClick={() =>
                online
                  ? setEditing({ kind: 'correction', text: note.content, error: null })
                  : toast({ title: 'You are offline', description: 'A note can be corrected only online.' })
              }
            >
              Correct
            </Button>
          ) : null}
          {isAdmin && !note.hidden ? (
            <Button size="sm" variant="destructive" onClick={() => void hide()}>
              Hide
            </Button>
          ) : null}
        </div>
      )}
    </article>
  );
}
