import { LIMITS } from '../../../schema/constants';
import { REACTION_TYPES, type ReactionType } from '../../../schema/post-rules';
import type { PostReactions } from '../../../schema/sync';

/** "A, B, C, D, E and 3 others": up to five names, then how many more (docs/behaviour.md, "Comments and reactions"). */
export function namesLine(names: readonly string[]): string {
  const shown = names.slice(0, LIMITS.reactionTooltipNames);
  const others = names.length - shown.length;
  if (others === 0) return shown.join(', ');
  return `${shown.join(', ')} and ${others} ${others === 1 ? 'other' : 'others'}`;
}

/**
 * Who chose each type: the user's own reaction document (it changes at once, offline too) first as "You",
 * then the others from the post's lists, without the user (the post may still hold their previous choice).
 */
export function reactionNames(
  reactions: PostReactions | undefined,
  mine: ReactionType | null,
  userId: string,
  nameOf: (userId: string) => string,
): Map<ReactionType, string[]> {
  const byType = new Map<ReactionType, string[]>();
  for (const type of REACTION_TYPES) {
    const others = (reactions?.[type] ?? []).filter((id) => id !== userId).map(nameOf);
    const names = mine === type ? ['You', ...others] : others;
    if (names.length > 0) byType.set(type, names);
  }
  return byType;
}

/**
 * The user's own reaction as the post's lists hold it: what a new device shows until its own reaction documents have
 * arrived (decision 129), so the counts do not drop by the user's one and come back.
 */
export function ownFromPost(reactions: PostReactions | undefined, userId: string): ReactionType | null {
  return REACTION_TYPES.find((type) => reactions?.[type]?.includes(userId)) ?? null;
}
