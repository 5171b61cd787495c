import { houseMention, mentionedHouse } from '../../schema/mention-rules';
import { displayName } from '../../schema/format';
import type { AccountType } from '../../schema/role-rules';
import type { DirectoryUserLocal } from '../db/collections';

/**
 * Typing `@` offers colleagues and houses to mention (decision 144). These are the suggestion list's rules, apart from
 * its markup (components/mention-field.tsx), so they are tested without a browser.
 */

/** One suggestion: what the post carries (a user id or `house:<name>`), and the name the text shows after `@`. */
export interface MentionCandidate {
  mention: string;
  label: string;
  /** A second line: "House" for a house, else the colleague's houses. */
  detail: string;
  /** A colleague's account type, for the Agency / Bank badge (decision 147); none for a house. */
  type?: AccountType;
}

/** Suggestions shown at once, at most. */
export const MENTION_SUGGESTIONS_MAX = 8;
/** The longest `@query` still looked up: past it the `@` is taken as text. */
const QUERY_MAX = 40;

/** Active colleagues (not oneself) by name, then the houses: what `@` may offer. */
export function mentionCandidates(
  users: readonly (Pick<DirectoryUserLocal, 'id' | 'firstName' | 'lastName' | 'isActive' | 'houses'> & {
    type?: AccountType;
  })[],
  houses: readonly string[],
  meId: string,
): MentionCandidate[] {
  const people = users
    .filter((user) => user.isActive && user.id !== meId)
    .map((user) => ({ mention: user.id, label: displayName(user), detail: user.houses.join(', '), type: user.type }))
    .sort((a, b) => a.label.localeCompare(b.label));
  return [...people, ...houses.map((house) => ({ mention: houseMention(house), label: house, detail: 'House' }))];
}

/** The `@query` being typed just before the caret, or null: an `@` at the start or after a space, no line break. */
export function mentionQueryAt(text: string, caret: number): { start: number; query: string } | null {
  const before = text.slice(0, caret);
  const start = before.lastIndexOf('@');
  if (start < 0 || (start > 0 && !/\s/.test(before[start - 1]))) return null;
  const query = before.slice(start + 1);
  if (query.length > QUERY_MAX || /[\n@]/.test(query) || query.startsWith(' ')) return null;
  return { start, query };
}

/**
 * The candidates whose name matches the query, best first: the whole name or any of its words starting with it
 * (so "lee" finds Ann Lee), case-insensitive.
 */
export function matchMentionCandidates(
  candidates: readonly MentionCandidate[],
  query: string,
  limit = MENTION_SUGGESTIONS_MAX,
): MentionCandidate[] {
  const wanted = query.trim().toLowerCase();
  const starts = (candidate: MentionCandidate) => candidate.label.toLowerCase().startsWith(wanted);
  const wordStarts = (candidate: MentionCandidate) =>
    candidate.label
      .toLowerCase()
      .split(/\s+/)
      .some((word) => word.startsWith(wanted));
  const first = candidates.filter(starts);
  const then = candidates.filter((candidate) => !starts(candidate) && wordStarts(candidate));
  return [...first, ...then].slice(0, limit);
}

/** The text with the `@query` replaced by `@Label ` and where the caret goes after it. */
export function insertMention(
  text: string,
  at: { start: number; query: string },
  label: string,
): { text: string; caret: number } {
  const inserted = `@${label} `;
  const end = at.start + 1 + at.query.length;
  return { text: text.slice(0, at.start) + inserted + text.slice(end), caret: at.start + inserted.length };
}

/** The name a mention shows as: the colleague's, or the house's. */
export function mentionLabel(mention: string, nameOf: (userId: string) => string): string {
  return mentionedHouse(mention) ?? nameOf(mention);
}

/**
 * The mentions a draft still means when it is sent: those whose `@Name` is still in the text (a name deleted from
 * the text mentions nobody), each once, at most `max`.
 */
export function mentionsInText(
  mentions: readonly string[],
  text: string,
  nameOf: (userId: string) => string,
  max: number,
): string[] {
  const kept = mentions.filter((mention) => text.includes(`@${mentionLabel(mention, nameOf)}`));
  return [...new Set(kept)].slice(0, max);
}

/** What the suggestion list shows and which option is active; `open` false hides it. */
export interface SuggestionState {
  open: boolean;
  active: number;
}

export type SuggestionKey = 'ArrowDown' | 'ArrowUp' | 'Enter' | 'Tab' | 'Escape';

/**
 * What a key does to the list of `count` options: arrows move (wrapping), Enter and Tab pick the active one, Escape
 * closes. `handled` says the key was the list's, so the field does not act on it too (no new line, no submit).
 */
export function suggestionKey(
  state: SuggestionState,
  key: string,
  count: number,
): { state: SuggestionState; pick: number | null; handled: boolean } {
  if (!state.open || count === 0) return { state, pick: null, handled: false };
  switch (key as SuggestionKey) {
    case 'ArrowDown':
      return { state: { open: true, active: (state.active + 1) % count }, pick: null, handled: true };
    case 'ArrowUp':
      return { state: { open: true, active: (state.active - 1 + count) % count }, pick: null, handled: true };
    case 'Enter':
    case 'Tab':
      return { state: { open: false, active: 0 }, pick: Math.min(state.active, count - 1), handled: true };
    case 'Escape':
      return { state: { open: false, active: 0 }, pick: null, handled: true };
    default:
      return { state, pick: null, handled: false };
  }
}

/** The names a text's mentions show as, by mention: what PostText turns into name chips. */
export function mentionNamesOf(
  mentions: readonly string[] | undefined,
  nameOf: (userId: string) => string,
): ReadonlyMap<string, string> | undefined {
  if (!mentions || mentions.length === 0) return undefined;
  return new Map(mentions.map((mention) => [mention, mentionLabel(mention, nameOf)]));
}

/**
 * What `@` offers in a conversation (decision 150): its members among the candidates (so never oneself), and in a
 * house chat its own house, which stands for its members.
 */
export function conversationMentionCandidates(
  candidates: readonly MentionCandidate[],
  memberIds: readonly string[],
  house: string | null,
): MentionCandidate[] {
  const members = new Set(memberIds);
  return candidates.filter((candidate) => {
    const named = mentionedHouse(candidate.mention);
    return named === null ? members.has(candidate.mention) : named === house;
  });
}
