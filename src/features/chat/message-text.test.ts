import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MessageText } from './message-text';

const nameOf = (id: string) => (id === 'ann' ? 'Ann Lee' : 'Deleted User');

describe('a message’s words in its bubble', () => {
  it('show the members it mentions as name chips, as text only', () => {
    const html = renderToStaticMarkup(
      createElement(MessageText, {
        content: 'Ask @Ann Lee or @Giles House <b>now</b>',
        mentions: ['ann', 'house:Giles House'],
        nameOf,
      }),
    );
    expect(html).toBe(
      '<p class="chat-bubble">Ask <span class="mention-chip">@Ann Lee</span> or ' +
        '<span class="mention-chip">@Giles House</span> &lt;b&gt;now&lt;/b&gt;</p>',
    );
  });

  it('are plain text without mentions, or with an @Name the message does not mention', () => {
    const plain = renderToStaticMarkup(createElement(MessageText, { content: 'Hi @Ann Lee', mentions: [], nameOf }));
    expect(plain).toBe('<p class="chat-bubble">Hi @Ann Lee</p>');
    const old = renderToStaticMarkup(
      createElement(MessageText, { content: 'Hi @Ann Lee', mentions: undefined, nameOf }),
    );
    expect(old).not.toContain('mention-chip');
  });
});
