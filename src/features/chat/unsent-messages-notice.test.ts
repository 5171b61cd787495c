import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { UnsentMessagesList } from './unsent-messages-notice';

describe('the notice of messages not sent', () => {
  it('shows each message’s words to copy, by conversation, as text only', () => {
    const message = (id: string, conversationId: string, text: string) =>
      ({ kind: 'message', id, conversationId, text, at: 1 }) as const;
    const html = renderToStaticMarkup(
      createElement(UnsentMessagesList, {
        databaseName: 'db',
        messages: [
          ['g1', [message('m1', 'g1', 'Keys in the <b>blue</b> tin'), message('m2', 'g1', 'Back at 6')]],
          ['g2', [message('m3', 'g2', 'Fire drill')]],
        ],
      }),
    );
    expect(html).toContain('aria-label="Messages not sent"');
    expect(html.match(/you are no longer in that conversation/g)).toHaveLength(2);
    expect(html).toContain('Keys in the &lt;b&gt;blue&lt;/b&gt; tin');
    expect(html).toContain('Back at 6');
    expect(html.match(/>Copy</g)).toHaveLength(3);
    expect(renderToStaticMarkup(createElement(UnsentMessagesList, { databaseName: 'db', messages: [] }))).toBe('');
  });
});
