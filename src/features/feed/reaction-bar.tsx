import { useMemo } from 'react';
import { REACTION_TYPES, type ReactionType } from '../../../schema/posts';
import { Tooltip, TooltipContent, TooltipTrigger } from '../../components/ui/tooltip';
import type { PostReactions } from '../../../schema/sync';
import type { UserDatabase } from '../../db/database';
import { cx } from '../../lib/cx';
import { toggleReaction } from './feed-actions';
import { namesLine, reactionNames } from './reaction-names';
import type { AuthorLookup } from './use-feed-data';
import { useOwnReaction } from './use-post-queries';

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
  /** Everyone's reactions as the server last sent them on the post. */
  reactions: PostReactions | undefined;
  userId: string;
  authors: AuthorLookup;
}

/** Counts per type from the post and the user's own reaction; pressing a type toggles the user's own. */
export function ReactionBar({ db, postId, reactions, userId, authors }: ReactionBarProps) {
  const mine = useOwnReaction(db, postId, userId);
  const byType = useMemo(
    () => reactionNames(reactions, mine?.type ?? null, userId, (id) => authors(id).name),
    [reactions, mine, userId, authors],
  );

  const choose = (type: ReactionType) => {
    if (!db) return;
    // Spec section 8: a failed reaction is only logged.
    toggleReaction(db, postId, userId, type, mine ?? undefined).catch((error: unknown) =>
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
                onClick={() => choose(type)}
              >
                {/* Named by its content, "Like (3)", so the name holds the count that shows (WCAG 2.5.3). */}
                <span aria-hidden className="reaction-emoji">
                  {emoji}
                </span>
                <span className="visually-hidden">{count ? `${label} (${count})` : label}</span>
                {count ? (
                  <span aria-hidden className="reaction-count">
                    {count}
                  </span>
                ) : null}
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
