import { useAtom } from 'jotai';
import { ArrowLeft, BellOff, Clock, Home, MessageCirclePlus, Search, Users, X } from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { useCallback, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { CHAT_SCREEN_PAGE, conversationIdOf } from '../../../schema/chat-rules';
import { displayName, formatTime } from '../../../schema/format';
import { roleLabel } from '../../../schema/role-rules';
import { UserAvatar } from '../../components/ui/avatar';
import { WrittenTime } from '../../components/written-time';
import type { ConversationLocal, MessageLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { useLocalStore } from '../../db/local-store-state';
import { useBackCloses } from '../../lib/back-closes';
import { chatRequestAtom } from '../../lib/chat-request';
import { cx } from '../../lib/cx';
import { useAuthors, type AuthorView } from '../../lib/use-authors';
import { useObservable } from '../../lib/use-observable';
import { markConversationRead, openConversation, sendMessage, writeWaitingMessage } from './chat-actions';
import { CountBadge } from '../../components/ui/count-badge';
import { ChatComposer, type ChatDraft } from './chat-composer';
import { chatOpenAtom } from './chat-state';
import { matchesContact, newestFromOther, newestFromOthers, seenBy, type ConversationSummary } from './chat-summary';
import { listChangeOf, pagedMessages, type MessagePage } from './message-page';
import { MessageFiles, WaitingMessageItem } from './message-files';
import { MessageText } from './message-text';
import { useSendWaitingMessages, useWaitingMessages } from './use-waiting-messages';
import { discardWaitingMessage } from './waiting-messages';
import { searchMessages } from './chat-search';
import { JoinHouseChats, MembersView } from './members-view';
import { NewGroupForm } from './new-group';
import { ChatName } from './chat-name';
import { UnsentMessagesNotice } from './unsent-messages-notice';
import { useChatContacts, useConversation, useConversations } from './use-chat';
import './chat.css';
import { useReturnFocus } from '../../components/ui/return-focus';

const EMPTY_PAGE: MessagePage = { messages: [], hasOlder: false, since: 0 };

type View =
  | { kind: 'list' }
  | { kind: 'new' }
  | { kind: 'new-group' }
  | { kind: 'conversation'; id: string; otherUserId: string | null }
  | { kind: 'members'; id: string };

/** The last message's time: HH:mm today, else the date (message time HH:mm; docs/behaviour.md, "Chat"). */
function listTime(at: number): string {
  const date = new Date(at);
  const today = new Date();
  if (date.toDateString() === today.toDateString()) return formatTime(at);
  return `${String(date.getDate()).padStart(2, '0')}/${String(date.getMonth() + 1).padStart(2, '0')}`;
}

/**
 * The chat panel (docs/behaviour.md, "Chat"): full screen on mobile, 20rem wide beside the page on larger screens, with
 * the conversation list, the new-chat list and an open conversation. Everything is read from and written to
 * the local database; replication delivers it live. `status` (the offline/sync banner) shows under its head.
 * Back closes it (decision 128).
 */
export function ChatPanel({ user, status }: { user: CurrentUser; status?: ReactNode }) {
  const [open, setOpen] = useAtom(chatOpenAtom);
  const [view, setView] = useState<View>({ kind: 'list' });
  const store = useLocalStore();
  const db = store?.db ?? null;
  useChatRequests(db, setOpen, setView);
  // Messages with photos or files go once these are uploaded, from whatever screen (decision 150).
  const sendWaiting = useSendWaitingMessages(store);
  const authors = useAuthors(store, user);
  const close = (next: boolean) => {
    setOpen(next);
    if (!next) setView({ kind: 'list' });
  };
  const shownId = view.kind === 'conversation' || view.kind === 'members' ? view.id : null;
  const current = useConversation(db, shownId);
  const shared = current !== null && current.kind !== 'direct';
  // A group or house chat that leaves the device while shown (left, removed) closes to the list (decision 146).
  const wasShown = useRef<string | null>(null);
  useEffect(() => {
    // Each opening waits for its own document before it can see it go.
    wasShown.current = null;
  }, [shownId]);
  useEffect(() => {
    if (current && shared) wasShown.current = current.id;
    else if (!current && shownId !== null && wasShown.current === shownId) setView({ kind: 'list' });
  }, [current, shared, shownId]);
  const title =
    view.kind === 'list'
      ? 'Messages'
      : view.kind === 'new'
        ? 'New Chat'
        : view.kind === 'new-group'
          ? 'New Group'
          : shared
            ? `${current.name ?? current.house ?? ''}${view.kind === 'members' ? ': members' : ''}`
            : view.kind === 'conversation'
              ? authors(view.otherUserId).name
              : '';
  const back = () =>
    setView(view.kind === 'members' ? { kind: 'conversation', id: view.id, otherUserId: null } : { kind: 'list' });
  const returnFocus = useReturnFocus({});
  useBackCloses(open, () => close(false));
  return (
    <DialogPrimitive.Root open={open} onOpenChange={close}>
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="overlay chat-overlay" />
        <DialogPrimitive.Content {...returnFocus} className="chat-panel" aria-describedby={undefined}>
          <div className="chat-head">
            {view.kind !== 'list' ? (
              <button
                type="button"
                className="header-icon-button"
                aria-label={view.kind === 'members' ? 'Back to the conversation' : 'Back to conversations'}
                onClick={back}
              >
                <ArrowLeft aria-hidden size={18} />
              </button>
            ) : null}
            <DialogPrimitive.Title className="chat-title">{title}</DialogPrimitive.Title>
            {view.kind === 'list' ? (
              <button
                type="button"
                className="header-icon-button"
                aria-label="New chat"
                onClick={() => setView({ kind: 'new' })}
              >
                <MessageCirclePlus aria-hidden size={18} />
              </button>
            ) : null}
            {view.kind === 'list' ? (
              <button
                type="button"
                className="header-icon-button"
                aria-label="New group"
                onClick={() => setView({ kind: 'new-group' })}
              >
                <Users aria-hidden size={18} />
              </button>
            ) : null}
            {view.kind === 'conversation' && shared ? (
              <button
                type="button"
                className="header-icon-button"
                aria-label="Members"
                onClick={() => setView({ kind: 'members', id: view.id })}
              >
                <Users aria-hidden size={18} />
              </button>
            ) : null}
            <DialogPrimitive.Close className="header-icon-button" aria-label="Close chat">
              <X aria-hidden size={18} />
            </DialogPrimitive.Close>
          </div>
          {status}
          {db && view.kind === 'list' ? <UnsentMessagesNotice databaseName={db.name} /> : null}
          {!db ? null : view.kind === 'list' ? (
            <ConversationList
              db={db}
              me={user}
              authors={authors}
              onOpen={(id, otherUserId) => setView({ kind: 'conversation', id, otherUserId })}
              onNew={() => setView({ kind: 'new' })}
            />
          ) : view.kind === 'new-group' ? (
            <NewGroupForm db={db} me={user} onOpen={(id) => setView({ kind: 'conversation', id, otherUserId: null })} />
          ) : view.kind === 'members' ? (
            current ? (
              <MembersView
                db={db}
                me={user}
                conversation={current}
                authors={authors}
                onLeft={() => setView({ kind: 'list' })}
              />
            ) : null
          ) : view.kind === 'new' ? (
            <NewChatList
              db={db}
              me={user}
              onOpen={(id, otherUserId) => setView({ kind: 'conversation', id, otherUserId })}
            />
          ) : (
            <ConversationView
              key={view.id}
              db={db}
              me={user}
              authors={authors}
              conversation={current}
              conversationId={view.id}
              otherUserId={view.otherUserId}
              sendWaiting={sendWaiting}
            />
          )}
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    </DialogPrimitive.Root>
  );
}

/** Opens the panel on the conversation another part of the app asks for (the bell's mention, decision 150). */
function useChatRequests(db: UserDatabase | null, setOpen: (open: boolean) => void, setView: (view: View) => void) {
  const [request, setRequest] = useAtom(chatRequestAtom);
  useEffect(() => {
    if (!request || !db) return;
    setRequest(null);
    void db.conversations
      .findOne(request.conversationId)
      .exec()
      .then((conversation) => {
        setOpen(true);
        setView(
          conversation
            ? { kind: 'conversation', id: conversation.id, otherUserId: conversation.otherUserId }
            : { kind: 'list' },
        );
      });
  }, [request, db, setRequest, setOpen, setView]);
}

/** A house chat's or group's picture: its kind's icon on the avatar circle. */
function ConversationIcon({ kind }: { kind: ConversationSummary['kind'] }) {
  return (
    <span className="chat-group-avatar" aria-hidden>
      {kind === 'house' ? <Home size={20} /> : <Users size={20} />}
    </span>
  );
}

function ConversationList({
  db,
  me,
  authors,
  onOpen,
  onNew,
}: {
  db: UserDatabase;
  me: CurrentUser;
  authors: (id: string | null) => AuthorView;
  onOpen: (id: string, otherUserId: string | null) => void;
  onNew: () => void;
}) {
  const { conversations: all, ready } = useConversations(db, me.id);
  const [search, setSearch] = useState('');
  const searchId = useId();
  // A one-to-one chat without a message (opened and left) is not listed; a house chat or group is (decision 146).
  const conversations = useMemo(() => all.filter((row) => row.lastMessage !== null || row.kind !== 'direct'), [all]);
  if (ready && conversations.length === 0) {
    return (
      <div className="chat-empty">
        <p>No conversations yet.</p>
        <button type="button" className="btn btn-primary btn-md" onClick={onNew}>
          <MessageCirclePlus aria-hidden size={18} />
          Start a new chat
        </button>
        <JoinHouseChats me={me} inChats={new Set()} onOpen={(id) => onOpen(id, null)} />
      </div>
    );
  }
  const inChats = new Set(all.map((row) => row.id));
  const nameOf = (row: ConversationSummary) =>
    row.kind === 'direct' ? authors(row.otherUserId).name : (row.name ?? '');
  const searching = search.trim() !== '';
  return (
    <>
      <SearchBox
        id={searchId}
        label="Search messages"
        placeholder="Search messages..."
        value={search}
        onChange={setSearch}
      />
      {searching ? (
        <FoundMessages
          db={db}
          search={search}
          conversations={all}
          nameOf={nameOf}
          onOpen={(row) => onOpen(row.id, row.otherUserId)}
        />
      ) : null}
      <ul className="chat-list" aria-label="Conversations" hidden={searching}>
        {conversations.map((row) => {
          const direct = row.kind === 'direct';
          const other = authors(row.otherUserId);
          const sender = row.lastMessage && !direct ? authors(row.lastMessage.senderId) : null;
          return (
            <li key={row.id}>
              <button type="button" className="chat-row" onClick={() => onOpen(row.id, row.otherUserId)}>
                {direct ? <UserAvatar user={other} size={40} /> : <ConversationIcon kind={row.kind} />}
                <span className="chat-row-text">
                  <span className="chat-row-top">
                    <span className="chat-row-name">{direct ? other.name : row.name}</span>
                    {row.muted ? <BellOff aria-label="Muted" size={14} className="chat-row-muted" /> : null}
                    {row.lastMessageAt ? <time className="chat-row-time">{listTime(row.lastMessageAt)}</time> : null}
                  </span>
                  <span className="chat-row-role">
                    {direct ? (other.role ? roleLabel(other.role) : '') : row.kind === 'house' ? 'House chat' : 'Group'}
                  </span>
                  <span className="chat-row-last">
                    {row.lastMessage
                      ? `${sender ? `${row.lastMessage.senderId === me.id ? 'You' : sender.firstName || sender.name}: ` : ''}${row.lastMessage.content}`
                      : 'No messages yet'}
                  </span>
                </span>
                <CountBadge count={row.unreadCount} />
                {row.unreadCount > 0 ? <span className="visually-hidden">{`, ${row.unreadCount} unread`}</span> : null}
              </button>
            </li>
          );
        })}
      </ul>
      {searching ? null : <JoinHouseChats me={me} inChats={inChats} onOpen={(id) => onOpen(id, null)} />}
    </>
  );
}

/** Search in chat (decision 146): the device's own messages that match, each with its conversation; a tap opens it. */
function FoundMessages({
  db,
  search,
  conversations,
  nameOf,
  onOpen,
}: {
  db: UserDatabase;
  search: string;
  conversations: readonly ConversationSummary[];
  nameOf: (row: ConversationSummary) => string;
  onOpen: (row: ConversationSummary) => void;
}) {
  const [found, setFound] = useState<MessageLocal[] | null>(null);
  useEffect(() => {
    let current = true;
    void searchMessages(db, search).then((messages) => {
      if (current) setFound(messages);
    });
    return () => {
      current = false;
    };
  }, [db, search]);
  const byId = new Map(conversations.map((row) => [row.id, row]));
  const shown = (found ?? []).flatMap((message) => {
    const row = byId.get(message.conversationId);
    return row ? [{ message, row }] : [];
  });
  if (found !== null && shown.length === 0) return <p className="chat-empty">No messages match your search.</p>;
  return (
    <ul className="chat-list" aria-label="Found messages">
      {shown.map(({ message, row }) => (
        <li key={message.id}>
          <button type="button" className="chat-row" onClick={() => onOpen(row)}>
            <span className="chat-row-text">
              <span className="chat-row-top">
                <span className="chat-row-name">{nameOf(row)}</span>
                <time className="chat-row-time">{listTime(message.createdAt)}</time>
              </span>
              <span className="chat-row-last">{message.content}</span>
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}

/**
 * New Chat: every colleague, found by name with the search box (a provider has hundreds of staff). Choosing one
 * opens the conversation without writing it: it is stored with its first message, so one left empty never
 * stays in the list (decision 129).
 */
function NewChatList({
  db,
  me,
  onOpen,
}: {
  db: UserDatabase;
  me: CurrentUser;
  onOpen: (id: string, otherUserId: string) => void;
}) {
  const contacts = useChatContacts(db, me.id);
  const [search, setSearch] = useState('');
  const searchId = useId();
  const found = useMemo(() => contacts.filter((contact) => matchesContact(contact, search)), [contacts, search]);
  if (contacts.length === 0) return <p className="chat-empty">No colleagues to chat with yet.</p>;
  return (
    <>
      <SearchBox
        id={searchId}
        label="Search staff"
        placeholder="Search by name or role..."
        value={search}
        onChange={setSearch}
      />
      {found.length === 0 ? <p className="chat-empty">No colleagues match your search.</p> : null}
      <ul className="chat-list" aria-label="Colleagues">
        {found.map((contact) => (
          <li key={contact.id}>
            <button
              type="button"
              className="chat-row"
              onClick={() => onOpen(conversationIdOf(me.id, contact.id), contact.id)}
            >
              <UserAvatar user={contact} size={40} />
              <span className="chat-row-text">
                <ChatName className="chat-row-name" name={displayName(contact)} type={contact.type} />
                <span className="chat-row-role">{roleLabel(contact.role)}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}

/** Room, in pixels, from the top of the list at which the page before is read. */
const LOAD_OLDER_ROOM = 400;
/** How close to the bottom counts as reading the newest messages, which a new message then follows. */
const NEAR_BOTTOM = 80;

function ConversationView({
  db,
  me,
  authors,
  conversation,
  conversationId,
  otherUserId,
  sendWaiting,
}: {
  db: UserDatabase;
  me: CurrentUser;
  authors: (id: string | null) => AuthorView;
  /** Null for a one-to-one chat opened from New Chat and not yet written. */
  conversation: ConversationLocal | null;
  conversationId: string;
  otherUserId: string | null;
  /** Uploads the files of waiting messages and sends them. */
  sendWaiting: (() => void) | null;
}) {
  const shared = conversation !== null && conversation.kind !== 'direct';
  const waiting = useWaitingMessages(me.id, conversationId);
  const [seenOf, setSeenOf] = useState<string | null>(null);
  // Only the newest page is rendered; scrolling up reads the page before (decision 73).
  const paged = useMemo(() => pagedMessages(db, conversationId, CHAT_SCREEN_PAGE), [db, conversationId]);
  const page = useObservable(paged.page$, EMPTY_PAGE).value;
  const { messages } = page;
  const nameOf = useCallback((id: string) => authors(id).name, [authors]);
  const list = useRef<HTMLOListElement>(null);
  // Measured before each change of the list: the distance from the bottom, kept when older messages are
  // added above, and whether the newest messages were in view.
  const fromBottom = useRef(0);
  const nearBottom = useRef(true);
  const shown = useRef<{ oldestId: string; newestId: string } | null>(null);

  // Opening a conversation with unread messages marks it read (docs/behaviour.md, "Chat"), and so do new ones while
  // open.
  const newest = shared ? newestFromOthers(messages, me.id) : newestFromOther(messages, otherUserId);
  useEffect(() => {
    if (newest !== null) void markConversationRead(db, conversationId, newest);
  }, [db, conversationId, newest]);

  const measure = () => {
    const el = list.current;
    if (!el) return;
    fromBottom.current = el.scrollHeight - el.scrollTop;
    nearBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= NEAR_BOTTOM;
    // Near the top, or a page too short to scroll: read the page before.
    if (el.scrollTop <= LOAD_OLDER_ROOM || el.scrollHeight <= el.clientHeight) paged.loadOlder(page);
  };

  // Before paint: open at the newest message, follow new ones when reading the newest (or one's own), and keep
  // the messages in view where they were when older ones are added above.
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const change = listChangeOf(shown.current, messages);
    const last = messages[messages.length - 1];
    if (messages[0] && last) shown.current = { oldestId: messages[0].id, newestId: last.id };
    if (change === 'first' || (change === 'newer' && (nearBottom.current || last?.senderId === me.id))) {
      el.scrollTop = el.scrollHeight;
    } else if (change === 'older') {
      el.scrollTop = el.scrollHeight - fromBottom.current;
    }
    measure();
  });

  const send = ({ content, mentions, files }: ChatDraft) => {
    // A conversation opened from New Chat is written with its first message, never empty (decision 129).
    void (otherUserId ? openConversation(db, me.id, otherUserId) : Promise.resolve()).then(async () => {
      if (files.length === 0)
        return void (await sendMessage(db, me.id, conversationId, content, Date.now(), { mentions }));
      await writeWaitingMessage(db, me.id, conversationId, { content, mentions, files });
      sendWaiting?.();
    });
  };

  return (
    <div className="chat-conversation">
      {/* Focusable so the keyboard can scroll it, and so reach earlier messages. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
      <ol ref={list} className="chat-messages" aria-label="Messages" tabIndex={0} onScroll={measure}>
        {page.hasOlder ? (
          <li className="chat-older" aria-hidden>
            Loading earlier messages...
          </li>
        ) : null}
        {messages.map((message) => {
          const own = message.senderId === me.id;
          const seen = own && conversation && !message.localPending ? seenBy(conversation, message) : [];
          return (
            <li key={message.id} className={cx('chat-message', own ? 'chat-message-own' : 'chat-message-other')}>
              {shared && !own ? (
                <ChatName
                  className="chat-sender"
                  name={authors(message.senderId).name}
                  type={authors(message.senderId).type}
                />
              ) : null}
              {message.content ? (
                <MessageText content={message.content} mentions={message.mentions} nameOf={nameOf} />
              ) : null}
              <MessageFiles images={message.images} attachments={message.attachments} />
              <span className="chat-meta">
                <WrittenTime
                  writtenAt={message.writtenAt}
                  arrivedAt={message.createdAt}
                  pending={message.localPending}
                />
                {message.localPending ? (
                  <span className="chat-pending">
                    <Clock aria-hidden size={12} />
                    Waiting to send
                  </span>
                ) : null}
                {seen.length > 0 && !shared ? <span className="chat-seen">Seen</span> : null}
                {seen.length > 0 && shared ? (
                  <button
                    type="button"
                    className="chat-seen chat-seen-button"
                    aria-expanded={seenOf === message.id}
                    onClick={() => setSeenOf(seenOf === message.id ? null : message.id)}
                  >
                    {`Seen by ${seen.length}`}
                  </button>
                ) : null}
              </span>
              {seenOf === message.id && shared ? (
                <ul className="chat-seen-names" aria-label="Seen by">
                  {seen.map((id) => (
                    <li key={id}>{authors(id).name}</li>
                  ))}
                </ul>
              ) : null}
            </li>
          );
        })}
        {waiting.map((message) => (
          <WaitingMessageItem
            key={message.id}
            message={message}
            onDiscard={() => void discardWaitingMessage(message.id)}
          />
        ))}
      </ol>
      <ChatComposer me={me} conversation={conversation} otherUserId={otherUserId} nameOf={nameOf} onSend={send} />
    </div>
  );
}

/** The panel's search field: its label read by screen readers, the icon only shown. */
function SearchBox(props: {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="chat-search">
      <label htmlFor={props.id} className="visually-hidden">
        {props.label}
      </label>
      <Search aria-hidden size={16} className="chat-search-icon" />
      <input
        id={props.id}
        className="input chat-search-input"
        type="search"
        placeholder={props.placeholder}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      />
    </div>
  );
}
