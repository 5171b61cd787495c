import fs from 'node:fs';
import path from 'node:path';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PageSpinner } from './spinner';

/** Markup without the whitespace between tags, and with the icon library's own class names left out. */
const normalise = (html: string) =>
  html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/>\s+</g, '><')
    .replace(/\s+/g, ' ')
    .replace(/ (\/?)>/g, '$1>')
    .replace(/ class="lucide [^"]*?spin"/, ' class="spin"')
    .trim();

/** The attributes of each tag, sorted, so the order they are written in does not matter. */
const sortAttributes = (html: string) =>
  html.replace(/<(\w+)((?: [\w-]+="[^"]*")+)(\/?)>/g, (_, tag: string, attrs: string, close: string) => {
    const sorted = (attrs.match(/ [\w-]+="[^"]*"/g) ?? []).sort().join('');
    return `<${tag}${sorted}${close}>`;
  });

describe('the page shell', () => {
  it('paints the same wait as the app’s first render, so nothing moves when React replaces it', () => {
    const indexHtml = fs.readFileSync(path.resolve(__dirname, '../../../index.html'), 'utf8');
    const root = /<div id="root">([\s\S]*)<\/div>\s*<noscript>/.exec(indexHtml)?.[1];
    expect(root).toBeDefined();
    const shell = sortAttributes(normalise(root!));
    const app = sortAttributes(normalise(renderToStaticMarkup(createElement(PageSpinner))));
    expect(shell).toBe(app);
  });
});
