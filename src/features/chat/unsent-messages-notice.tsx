import { TriangleExclamationPoint } from 'lucide-react';
import { useMemo, useSyncExternalStore } from 'react';
import { CopyTextButton } from '../../components/copy-text-button';
import { Button } from '../../components/ui/button';
import { Notice } from '../../components/ui/notice';
import {
  dismissLostMessages,
  lostChangesText,
  parseLostChanges,
  subscribeLostChanges,
  type LostMessage,
} from '../../db/lost-changes-store';

/**
 * Messages written on this device that were never delivered (their conversation was left meanwhile): the device keeps
 * no words of them but here, one notice per conversation, each text to read or copy until dismissed (decision 150).
 */
export function UnsentMessagesNotice({ databaseName }: { databaseName: string }) {
  const text = useSyncExternalStore(subscribeLostChanges, () => lostChangesText(databaseName));
  return <UnsentMessagesList messages={useLostMessages(text)} databaseName={databaseName} />;
}

function useLostMessages(text: string | null): [string, LostMessage[]][] {
  return useMemo(() => {
    const groups = new Map<string, LostMessage[]>();
    for (const change of parseLostChanges(text)) {
      if (change.kind === 'message')
        groups.set(change.conversationId, [...(groups.get(change.conversationId) ?? []), change]);
    }
    return [...groups];
  }, [text]);
}

/** The notices themselves, by conversation (rendered apart from the store for tests). */
export function UnsentMessagesList({
  messages,
  databaseName,
}: {
  messages: [string, LostMessage[]][];
  databaseName: string;
}) {
  if (messages.length === 0) return null;
  return (
    <section className="chat-unsent" aria-label="Messages not sent">
      {messages.map(([conversationId, lost]) => (
        <Notice
          key={conversationId}
          tone="warning"
          role="status"
          icon={<TriangleExclamationPoint aria-hidden size={18} />}
          title="Messages you wrote offline were not sent: you are no longer in that conversation"
          className="chat-unsent-notice"
        >
          <ul className="chat-unsent-list">
            {lost.map((message) => (
              <li key={message.id}>
                <p className="chat-unsent-text">{message.text}</p>
                <CopyTextButton text={message.text} />
              </li>
            ))}
          </ul>
          <Button variant="outline" size="sm" onClick={() => dismissLostMessages(databaseName, conversationId)}>
            Dismiss
          </Button>
        </Notice>
      ))}
    </section>
  );
}
