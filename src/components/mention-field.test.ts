import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { MentionSuggestions } from './mention-field';
import { PostText } from './post-text';

describe('the mention suggestion list', () => {
  it('is a labelled listbox whose options the field names as active, each with its name and detail', () => {
    const html = renderToStaticMarkup(
      createElement(MentionSuggestions, {
        id: 'm',
        options: [
          { mention: 'ann', label: 'Ann Lee', detail: 'Giles House' },
          { mention: 'house:Tudor Way', label: 'Tudor Way', detail: 'House' },
        ],
        active: 1,
        onPick: () => undefined,
      }),
    );
    expect(html).toMatch(/^<ul role="listbox" id="m" aria-label="Mention a colleague or house"/);
    expect(html).toContain('<li id="m-0" role="option" tabindex="-1" aria-selected="false" class="mention-option">');
    expect(html).toContain(
      '<li id="m-1" role="option" tabindex="-1" aria-selected="true" class="mention-option mention-option-active">',
    );
    expect(html).toContain('<span class="mention-option-name">@Ann Lee</span>');
    expect(html).toContain('Giles House</span>');
  });
});

describe('mentions in post and comment text', () => {
  it('show as name chips, as text only, beside links', () => {
    const html = renderToStaticMarkup(
      createElement(PostText, {
        text: 'Thanks @Ann Lee <script>x</script> see https://example.org',
        mentionNames: new Map([['ann', 'Ann Lee']]),
      }),
    );
    expect(html).toContain('Thanks <span class="mention-chip">@Ann Lee</span> &lt;script&gt;x&lt;/script&gt; see ');
    expect(html).toContain('<a href="https://example.org" target="_blank" rel="noopener noreferrer">');
    const plain = renderToStaticMarkup(createElement(PostText, { text: 'Hi @Ann Lee' }));
    expect(plain).not.toContain('mention-chip');
  });
});
