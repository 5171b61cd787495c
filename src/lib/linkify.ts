/** A run of post text: plain text, or a web address to show as a link. */
export type TextPart = { kind: 'text'; text: string } | { kind: 'link'; text: string; href: string };

const URL_PATTERN = /\b(?:https?:\/\/|www\.)[^\s<>"]+/gi;
/** Punctuation that ends a sentence rather than the address ("see https://x.org/a."). */
const TRAILING = new Set('.,;:!?\'"”’)]}');

/**
 * Where the address ends once sentence punctuation after it is left out. Read backwards once, so a long run of
 * punctuation inside an address costs its length, not its length squared (an anchored regex retried at every
 * position of the run would).
 */
function addressEnd(url: string): number {
  let end = url.length;
  while (end > 0 && TRAILING.has(url[end - 1])) end -= 1;
  // Keep a closing bracket that belongs to the address, as in Wikipedia links "(disambiguation)".
  if (end < url.length && url[end] === ')' && url.includes('(')) end += 1;
  return end;
}

/** Splits text into plain runs and http(s) links in one pass; nothing is ever parsed as HTML. */
export function linkify(text: string): TextPart[] {
  const parts: TextPart[] = [];
  let last = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    const url = match[0].slice(0, addressEnd(match[0]));
    const start = match.index;
    if (start > last) parts.push({ kind: 'text', text: text.slice(last, start) });
    const href = url.toLowerCase().startsWith('www.') ? `https://${url}` : url;
    parts.push({ kind: 'link', text: url, href });
    last = start + url.length;
  }
  if (last < text.length) parts.push({ kind: 'text', text: text.slice(last) });
  return parts;
}
