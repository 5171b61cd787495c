/** A run of post text: plain text, or a web address to show as a link. */
export type TextPart = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;
/** Punctuation that ends a sentence rather than the address ("see https://x.org/a."). */
const TRAILING = /[.,;:!?'"”’)\]}]+$/;

/** Splits text into plain runs and http(s) links; nothing is ever parsed as HTML. */
export function linkify(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    let url = match[0];
    const trailing = TRAILING.exec(url)?.[0] ?? '';
    // Keep a closing bracket that belongs to the address, as in Wikipedia links "(disambiguation)".
    const keep = trailing.startsWith(')') && url.includes('(') ? 1 : 0;
    url = url.slice(0, url.length - trailing.length + keep);
    const start = match.index;
    if (start > last) parts.push({ kind: 'text', text: text.slice(last, start) });
    const href = url.toLowerCase().startsWith('www.') ? `https://${url}` : url;
    parts.push({ kind: 'link', text: url, href });
    last = start + url.length;
  }
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}
