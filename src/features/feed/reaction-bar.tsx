import { useMemo } from 'react';
import { REACTION_TYPES, type ReactionType } from '../../../schema/posts';
import { Tooltip, TooltipContent, TooltipTrigger } from '../../components/ui/tooltip';
import type { UserDatabase } from '../../db/database';
import { cx } from '../../lib/cx';
import { toggleReaction } from './feed-actions';
import { namesLine } from './reaction-names';
import type { AuthorLookup } from './use-feed-data';
import { usePostReactions } from './use-post-queries';

/** The six reactions of spec section 3, as text emoji (no image CDN). */
export const REACTIONS: Record<ReactionType, { emoji: string; label: string }> = {
  like: { emoji: '👍', label: 'Like' },
  love: { emoji: '❤️', label: 'Love' },
  laugh: { emoji: '😂', label: 'Laugh' },
  wow: { emoji: '😮', label: 'Wow' },
  sad: { emoji: '😢', label: 'Sad' },
  angry: { emoji: '😠', label: 'Angry' },
};

interface ReactionBarProps {
  db: UserDatabase | null;
  postId: string;
  userId: string;
  authors: AuthorLookup;
}

/** Counts per type from the local reactions; pressing a type toggles the user's own reaction. */
export function ReactionBar({ db, postId, userId, authors }: ReactionBarProps) {
  const reactions = usePostReactions(db, postId);
  const { byType, mine } = useMemo(() => {
    const grouped = new Map<ReactionType, string[]>();
    for (const reaction of reactions) {
      const names = grouped.get(reaction.type) ?? [];
      names.push(reaction.userId === userId ? 'You' : authors(reaction.userId).name);
      grouped.set(reaction.type, names);
    }
    return { byType: grouped, mine: reactions.find((r) => r.userId === userId) };
  }, [reactions, userId, authors]);

  const choose = (type: ReactionType) => {
    if (!db) return;
    // Spec section 8: a failed reaction is only logged.
    toggleReaction(db, postId, userId, type, mine).catch((error: unknown) =>
      console.error('Could not change the reaction', error),
    );
  };

  return (
    <div className="reaction-bar" role="group" aria-label="Reactions">
      {REACTION_TYPES.map((type) => {
        const names = byType.get(type) ?? [];
        const own = mine?.type === type;
        // Spec section 4: a count is hidden at zero unless it is the user's own reaction.
        const count = names.length > 0 || own ? names.length : null;
        const { emoji, label } = REACTIONS[type];
        return (
          <Tooltip key={type}>
            <TooltipTrigger asChild>
              <button
                type="button"
                className={cx('reaction', own && 'reaction-mine')}
                aria-pressed={own}
                aria-label={count ? `${label} (${count})` : label}
                onClick={() => choose(type)}
              >
                <span aria-hidden className="reaction-emoji">
                  {emoji}
                </span>
                {count ? <span className="reaction-count">{count}</span> : null}
              </button>
            </TooltipTrigger>
            <TooltipContent>
              {names.length > 0 ? (
                <>
                  <strong>{label}:</strong> {namesLine(names)}
                </>
              ) : (
                label
              )}
            </TooltipContent>
          </Tooltip>
        );
      })}
    </div>
  );
}
