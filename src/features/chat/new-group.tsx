import { useId, useMemo, useState, type FormEvent } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { GROUP_NAME_MAX } from '../../../schema/chat-rules';
import { displayName } from '../../../schema/format';
import { roleLabel } from '../../../schema/role-rules';
import { UserAvatar } from '../../components/ui/avatar';
import { Button } from '../../components/ui/button';
import type { UserDatabase } from '../../db/database';
import { serverMessageOf } from '../../lib/api';
import { useOnline } from '../../lib/use-online';
import { matchesContact } from './chat-summary';
import { GROUPS_OFFLINE, newGroupRequest, startGroup } from './group-actions';
import { useChatContacts } from './use-chat';

/**
 * New Group (decision 146): a name and colleagues chosen from the device's directory (active ones). It is started on
 * the server, so only online; the new group then opens and fills in as the sync brings it.
 */
export function NewGroupForm({ db, me, onOpen }: { db: UserDatabase; me: CurrentUser; onOpen: (id: string) => void }) {
  const contacts = useChatContacts(db, me.id);
  const online = useOnline();
  const [name, setName] = useState('');
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const nameId = useId();
  const searchId = useId();
  const found = useMemo(() => contacts.filter((contact) => matchesContact(contact, search)), [contacts, search]);

  const toggle = (id: string) =>
    setChosen((before) => {
      const next = new Set(before);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const request = newGroupRequest(name, [...chosen]);
    if ('error' in request) return setError(request.error);
    setBusy(true);
    try {
      onOpen((await startGroup(request.body)).id);
    } catch (failure) {
      setError(serverMessageOf(failure, 'The group could not be started. Please try again.'));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="chat-group-form" onSubmit={(event) => void submit(event)} noValidate>
      {online ? null : (
        <p className="chat-offline" role="status">
          {GROUPS_OFFLINE}
        </p>
      )}
      <label htmlFor={nameId} className="label">
        Group name
      </label>
      <input
        id={nameId}
        className="input"
        value={name}
        maxLength={GROUP_NAME_MAX}
        aria-invalid={error !== null && !name.trim()}
        onChange={(event) => setName(event.target.value)}
      />
      <label htmlFor={searchId} className="label">
        Colleagues
      </label>
      <input
        id={searchId}
        className="input"
        type="search"
        placeholder="Search by name or role..."
        value={search}
        onChange={(event) => setSearch(event.target.value)}
      />
      <ul className="chat-list chat-pick-list" aria-label="Colleagues to add">
        {found.map((contact) => (
          <li key={contact.id}>
            <label className="chat-row">
              <input type="checkbox" checked={chosen.has(contact.id)} onChange={() => toggle(contact.id)} />
              <UserAvatar user={contact} size={32} />
              <span className="chat-row-text">
                <span className="chat-row-name">{displayName(contact)}</span>
                <span className="chat-row-role">{roleLabel(contact.role)}</span>
              </span>
            </label>
          </li>
        ))}
      </ul>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <Button type="submit" disabled={!online || busy}>
        {`Start group${chosen.size > 0 ? ` with ${chosen.size}` : ''}`}
      </Button>
    </form>
  );
}
