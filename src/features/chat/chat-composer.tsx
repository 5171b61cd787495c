import { Send } from 'lucide-react';
import { useId, useMemo, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { MESSAGE_CONTENT_MAX } from '../../../schema/chat-rules';
import { MENTIONS_MAX } from '../../../schema/mention-rules';
import { EmojiButton } from '../../components/emoji/emoji-button';
import { useMentionCandidates, useMentionField } from '../../components/mention-field';
import type { ConversationLocal } from '../../db/collections';
import { useLocalStore } from '../../db/local-store-state';
import { conversationMentionCandidates, mentionsInText } from '../../lib/mentions';

/** What the composer sends: the text and the members it still mentions. */
export interface ChatDraft {
  content: string;
  mentions: string[];
}

/**
 * The message box of an open conversation: Enter sends, Shift+Enter breaks the line, and `@` offers the
 * conversation's members (and a house chat's house) from the local directory, offline too (decision 150).
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
  const field = useRef<HTMLTextAreaElement>(null);
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

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (!draft.trim()) return;
    const content = draft.slice(0, MESSAGE_CONTENT_MAX);
    // A name taken out of the text again mentions nobody (decision 144).
    onSend({ content, mentions: mentionsInText(mentions, content, nameOf, MENTIONS_MAX) });
    setDraft('');
    setMentions([]);
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
      <button type="submit" className="btn btn-primary btn-icon" aria-label="Send" disabled={!draft.trim()}>
        <Send aria-hidden size={18} />
      </button>
    </form>
  );
}
