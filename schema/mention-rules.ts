/**
 * The rules of @mentions that the app shows and checks (decision 144), apart from their zod schema in mentions.ts: the
 * feed uses these without building a schema (decision 106). mentions.ts exports them too.
 */
import type { Role } from './role-rules';

/** Mentions one post or comment may carry (people and houses together). */
export const MENTIONS_MAX = 20;
/** The prefix of a house mention: `house:Oak House` mentions every active member of Oak House. */
export const HOUSE_MENTION_PREFIX = 'house:';

/** The mention of everyone in a house. */
export function houseMention(house: string): string {
  return `${HOUSE_MENTION_PREFIX}${house}`;
}

/** The house a mention names, or null when it names a person. */
export function mentionedHouse(mention: string): string | null {
  return mention.startsWith(HOUSE_MENTION_PREFIX) ? mention.slice(HOUSE_MENTION_PREFIX.length) : null;
}

/**
 * Whether a colleague may see a post, and so be told of a mention in it or its comments: a post addressed to houses
 * (`audienceHouses`) is for those houses and the admins; any other post is for everyone (decision 144).
 */
export function canSeeMentionsOf(
  user: { role: Role; houses: readonly string[] },
  post: { audienceHouses: readonly string[] },
): boolean {
  if (post.audienceHouses.length === 0) return true;
  if (user.role === 'admin' || user.role === 'system_admin') return true;
  return user.houses.some((house) => post.audienceHouses.includes(house));
}

/** One piece of a post's or comment's text as it shows: plain text, or a mention shown as a name chip. */
export type TextPart = { kind: 'text'; text: string } | { kind: 'mention'; text: string; mention: string };

/**
 * Splits text into plain parts and mention chips: `@First Last` (or `@House name`) where that name belongs to one
 * of the mentions. Longer names are matched first, so `@Ann Lee` wins over `@Ann`. Text only: nothing is markup.
 */
export function splitMentions(text: string, names: ReadonlyMap<string, string>): TextPart[] {
  const labels = [...names.entries()].filter(([, label]) => label.length > 0).sort((a, b) => b[1].length - a[1].length);
  const parts: TextPart[] = [];
  let plain = '';
  let i = 0;
  while (i < text.length) {
    const found = text[i] === '@' ? labels.find(([, label]) => text.startsWith(label, i + 1)) : undefined;
    if (!found) {
      plain += text[i];
      i += 1;
      continue;
    }
    if (plain) parts.push({ kind: 'text', text: plain });
    plain = '';
    parts.push({ kind: 'mention', text: `@${found[1]}`, mention: found[0] });
    i += found[1].length + 1;
  }
  if (plain) parts.push({ kind: 'text', text: plain });
  return parts;
}
