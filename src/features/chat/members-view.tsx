import { useMemo, useState } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { houseChatIdOf } from '../../../schema/chat-rules';
import { canJoinHouseChat } from '../../../schema/permissions';
import { roleLabel } from '../../../schema/role-rules';
import { UserAvatar } from '../../components/ui/avatar';
import { Button } from '../../components/ui/button';
import type { ConversationLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { serverMessageOf } from '../../lib/api';
import type { AuthorView } from '../../lib/use-authors';
import { useHouses } from '../../lib/use-houses';
import { useOnline } from '../../lib/use-online';
import {
  addGroupMembers,
  GROUPS_OFFLINE,
  joinHouseChat,
  leaveConversation,
  memberActionsOf,
  removeGroupMember,
  renameGroup,
  setConversationMuted,
} from './group-actions';
import { ChatName } from './chat-name';
import { useChatContacts } from './use-chat';

/**
 * A group or house chat's members: the names; Add, Remove and Rename for a group's creator and admins; Leave for
 * everyone (the server refuses house staff with its message); Join for admins outside a house chat; Mute for oneself.
 * Everything but Mute is REST and so online only; Mute is the synced `muted` field (decision 143).
 */
export function MembersView({
  db,
  me,
  conversation,
  authors,
  onLeft,
}: {
  db: UserDatabase;
  me: CurrentUser;
  conversation: ConversationLocal;
  authors: (id: string | null) => AuthorView;
  onLeft: () => void;
}) {
  const online = useOnline();
  const can = memberActionsOf(me, conversation);
  const contacts = useChatContacts(db, me.id);
  const outside = useMemo(
    () => contacts.filter((contact) => !conversation.memberIds.includes(contact.id)),
    [contacts, conversation.memberIds],
  );
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [name, setName] = useState<string | null>(null);

  const run = async (action: () => Promise<void>, after?: () => void) => {
    setError(null);
    if (!online) return setError(GROUPS_OFFLINE);
    try {
      await action();
      after?.();
    } catch (failure) {
      setError(serverMessageOf(failure, 'That did not work. Please try again.'));
    }
  };

  return (
    <div className="chat-members">
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="chat-members-actions">
        <Button
          size="sm"
          variant="outline"
          onClick={() => void setConversationMuted(db, conversation.id, !conversation.muted)}
        >
          {conversation.muted ? 'Unmute' : 'Mute'}
        </Button>
        {can.manage ? (
          <Button size="sm" variant="outline" onClick={() => setName(conversation.name ?? '')}>
            Rename
          </Button>
        ) : null}
        {can.manage ? (
          <Button size="sm" variant="outline" onClick={() => setAdding(!adding)}>
            Add
          </Button>
        ) : null}
        {can.join ? (
          <Button size="sm" onClick={() => void run(() => joinHouseChat(conversation.id))}>
            Join
          </Button>
        ) : null}
        {can.leave ? (
          <Button
            size="sm"
            variant="destructive"
            onClick={() => void run(() => leaveConversation(conversation.id), onLeft)}
          >
            Leave
          </Button>
        ) : null}
      </div>
      {name !== null ? (
        <form
          className="chat-rename"
          onSubmit={(event) => {
            event.preventDefault();
            void run(
              () => renameGroup(conversation.id, name),
              () => setName(null),
            );
          }}
        >
          <input
            className="input"
            aria-label="Group name"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <Button type="submit" size="sm">
            Save
          </Button>
        </form>
      ) : null}
      {adding ? (
        <ul className="chat-list" aria-label="Colleagues to add">
          {outside.map((contact) => (
            <li key={contact.id}>
              <button
                type="button"
                className="chat-row"
                onClick={() => void run(() => addGroupMembers(conversation.id, [contact.id]))}
              >
                <UserAvatar user={contact} size={32} />
                <span className="chat-row-name">{`Add ${authors(contact.id).name}`}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ul className="chat-list" aria-label="Members">
        {conversation.memberIds.map((id) => {
          const member = authors(id);
          return (
            <li key={id} className="chat-row">
              <UserAvatar user={member} size={32} />
              <span className="chat-row-text">
                <ChatName
                  className="chat-row-name"
                  name={id === me.id ? `${member.name} (you)` : member.name}
                  type={member.type}
                />
                <span className="chat-row-role">{member.role ? roleLabel(member.role) : ''}</span>
              </span>
              {can.manage && id !== me.id ? (
                <Button
                  size="sm"
                  variant="outline"
                  aria-label={`Remove ${member.name}`}
                  onClick={() => void run(() => removeGroupMember(conversation.id, id))}
                >
                  Remove
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

/**
 * For admins: the house chats they are not in, each with Join (decision 143: an admin joins a house chat by hand).
 * Online only; the joined chat then arrives through the sync and opens.
 */
export function JoinHouseChats({
  me,
  inChats,
  onOpen,
}: {
  me: CurrentUser;
  inChats: ReadonlySet<string>;
  onOpen: (id: string) => void;
}) {
  const houses = useHouses();
  const online = useOnline();
  const [error, setError] = useState<string | null>(null);
  if (!canJoinHouseChat(me)) return null;
  const others = houses.filter((house) => !inChats.has(houseChatIdOf(house)));
  if (others.length === 0) return null;
  const join = async (id: string) => {
    setError(null);
    if (!online) return setError(GROUPS_OFFLINE);
    try {
      await joinHouseChat(id);
      onOpen(id);
    } catch (failure) {
      setError(serverMessageOf(failure, 'That did not work. Please try again.'));
    }
  };
  return (
    <section className="chat-join" aria-label="Other house chats">
      <h3 className="chat-join-title">Other house chats</h3>
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <ul className="chat-list">
        {others.map((house) => (
          <li key={house} className="chat-row">
            <span className="chat-row-name">{house}</span>
            <Button
              size="sm"
              variant="outline"
              aria-label={`Join ${house}`}
              onClick={() => void join(houseChatIdOf(house))}
            >
              Join
            </Button>
          </li>
        ))}
      </ul>
    </section>
  );
}
