import { useMemo } from 'react';
import { splitMentions } from '../../../schema/mention-rules';
import { mentionNamesOf } from '../../lib/mentions';

/**
 * A message's words in its bubble, as text only (React escapes them); the `@Name` of each member it mentions shows
 * as a name chip (decision 150).
 */
export function MessageText({
  content,
  mentions,
  nameOf,
}: {
  content: string;
  mentions: readonly string[] | undefined;
  nameOf: (userId: string) => string;
}) {
  const parts = useMemo(() => {
    const names = mentionNamesOf(mentions, nameOf);
    return names ? splitMentions(content, names) : null;
  }, [content, mentions, nameOf]);
  return (
    <p className="chat-bubble">
      {parts
        ? parts.map((part, index) =>
            part.kind === 'mention' ? (
              <span key={index} className="mention-chip">
                {part.text}
              </span>
            ) : (
              part.text
            ),
          )
        : content}
    </p>
  );
}
