import { Paperclip, Send, X } from 'lucide-react';
import { useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { MESSAGE_CONTENT_MAX, MESSAGE_FILES_MAX } from '../../../schema/chat-rules';
import { MENTIONS_MAX } from '../../../schema/mention-rules';
import { UPLOAD_ACCEPT } from '../../../schema/upload-rules';
import { EmojiButton } from '../../components/emoji/emoji-button';
import { useMentionCandidates, useMentionField } from '../../components/mention-field';
import type { ConversationLocal } from '../../db/collections';
import { useLocalStore } from '../../db/local-store-state';
import { conversationMentionCandidates, mentionsInText } from '../../lib/mentions';

/** What the composer sends: the text, the members it still mentions, and the photos and files chosen. */
export interface ChatDraft {
  content: string;
  mentions: string[];
  files: File[];
}

/**
 * The message box of an open conversation: Enter sends, Shift+Enter breaks the line, `@` offers the conversation's
 * members (and a house chat's house) from the local directory, offline too, and the clip attaches photos and files
 * (decision 150).
 */
export function ChatComposer({
  me,
  conversation,
  otherUserId,
  nameOf,
  onSend,
}: {
  me: CurrentUser;
  /** Null for a one-to-one chat opened from New Chat and not yet written. */
  conversation: ConversationLocal | null;
  otherUserId: string | null;
  nameOf: (userId: string) => string;
  onSend: (draft: ChatDraft) => void;
}) {
  const listId = useId();
  const [draft, setDraft] = useState('');
  const [mentions, setMentions] = useState<string[]>([]);
  const [files, setFiles] = useState<File[]>([]);
  const field = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const all = useMentionCandidates(useLocalStore(), me);
  const memberIds = conversation?.memberIds;
  const house = conversation?.kind === 'house' ? conversation.house : null;
  const candidates = useMemo(
    () => conversationMentionCandidates(all, memberIds ?? (otherUserId ? [otherUserId] : []), house),
    [all, memberIds, otherUserId, house],
  );
  const mention = useMentionField({
    listId,
    field,
    value: draft,
    onValueChange: setDraft,
    candidates,
    mentions,
    onMentionsChange: setMentions,
    multiline: true,
  });

  const ready = draft.trim() !== '' || files.length > 0;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!ready) return;
    const content = draft.slice(0, MESSAGE_CONTENT_MAX);
    // A name taken out of the text again mentions nobody (decision 144).
    onSend({ content, mentions: mentionsInText(mentions, content, nameOf, MENTIONS_MAX), files });
    setDraft('');
    setMentions([]);
    setFiles([]);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // The suggestion list takes Enter, Tab, arrows and Escape while it is open.
    mention.fieldProps.onKeyDown(event);
    if (event.defaultPrevented) return;
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      submit();
    }
  };

  return (
    <form className="chat-composer" onSubmit={submit}>
      {files.length > 0 ? (
        <ul className="chat-picked" aria-label="Photos and files to send">
          {files.map((file, index) => (
            <li key={`${index}:${file.name}`}>
              <span className="chat-picked-name">{file.name}</span>
              <button
                type="button"
                className="header-icon-button"
                aria-label={`Remove ${file.name}`}
                onClick={() => setFiles(files.filter((_, i) => i !== index))}
              >
                <X aria-hidden size={14} />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <input
        ref={picker}
        type="file"
        multiple
        accept={UPLOAD_ACCEPT}
        className="visually-hidden"
        tabIndex={-1}
        aria-label="Photos or files to attach"
        onChange={(event) => {
          const picked = Array.from(event.target.files ?? []);
          // Cleared so choosing the same file again still fires a change.
          event.target.value = '';
          setFiles([...files, ...picked].slice(0, MESSAGE_FILES_MAX));
        }}
      />
      <button
        type="button"
        className="header-icon-button"
        aria-label="Attach photos or files"
        disabled={files.length >= MESSAGE_FILES_MAX}
        onClick={() => picker.current?.click()}
      >
        <Paperclip aria-hidden size={18} />
      </button>
      <textarea
        ref={field}
        className="chat-input"
        aria-label="Message"
        placeholder="Type a message..."
        rows={1}
        maxLength={MESSAGE_CONTENT_MAX}
        value={draft}
        {...mention.fieldProps}
        onKeyDown={onKeyDown}
      />
      {mention.suggestions}
      <EmojiButton field={field} onInsert={setDraft} />
      <button type="submit" className="btn btn-primary btn-icon" aria-label="Send" disabled={!ready}>
        <Send aria-hidden size={18} />
      </button>
    </form>
  );
}
