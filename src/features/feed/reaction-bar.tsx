import { useEffect, useMemo, useState } from 'react';
import { REACTION_TYPES, type ReactionType } from '../../../schema/post-rules';
import type { PostReactions } from '../../../schema/sync';
import type { UserDatabase } from '../../db/database';
import { cx } from '../../lib/cx';
import { toggleReaction } from './feed-actions';
import { namesLine, ownFromPost, reactionNames } from './reaction-names';
import type { AuthorLookup } from '../../lib/use-authors';
import { useOwnReaction } from './use-post-queries';

/** The six reactions (docs/behaviour.md, "Comments and reactions"), as text emoji (no image CDN). */
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
  /** False on a new device until the user's own reaction documents have arrived (decision 129). */
  ownKnown?: boolean;
}

let tooltipsListened = false;

/** Room kept between a tooltip and the edge of its card. */
const EDGE_PX = 8;

/**
 * Puts a reaction's tooltip where it fits in its card (which clips it) and so on the screen: centred over its
 * button, or from its left or right edge near a side (the bar wraps on a phone, so any type can be near either).
 */
function alignTooltip(slot: HTMLElement): void {
  const tip = slot.querySelector<HTMLElement>('.reaction-tip');
  if (!tip) return;
  const bounds = (slot.closest('article') ?? document.documentElement).getBoundingClientRect();
  const { left, width } = slot.getBoundingClientRect();
  const centre = left + width / 2;
  const half = tip.offsetWidth / 2;
  slot.dataset.align =
    centre - half < bounds.left + EDGE_PX ? 'start' : centre + half > bounds.right - EDGE_PX ? 'end' : 'centre';
}

/**
 * The reaction tooltips' listeners, one set for the whole app: each tooltip is placed as the pointer or focus
 * reaches its button, and Escape hides them until the pointer moves onto something else or focus moves (WCAG
 * 1.4.13: content shown on hover or focus can be dismissed without moving either).
 */
function listenForTooltips(): void {
  if (tooltipsListened) return;
  tooltipsListened = true;
  const root = document.documentElement;
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') root.dataset.tooltipsDismissed = '';
  });
  const reached = (event: Event) => {
    delete root.dataset.tooltipsDismissed;
    const slot = event.target instanceof Element ? event.target.closest<HTMLElement>('.reaction-slot') : null;
    if (slot) alignTooltip(slot);
  };
  document.addEventListener('pointerover', reached);
  document.addEventListener('focusin', reached);
}

/**
 * Counts per type from the post and the user's own reaction; pressing a type toggles the user's own. Each type's
 * tooltip (up to five names, then "and N others") shows on hover and keyboard focus. It is plain markup shown by
 * CSS, not a tooltip component per button: six of those per card were a large part of rendering the feed
 * (decision 94).
 */
export function ReactionBar({ db, postId, reactions, userId, authors, ownKnown = true }: ReactionBarProps) {
  const mine = useOwnReaction(db, postId, userId);
  // Until the device has the user's own reactions (a new device's preview, its first sync), the post's lists say
  // which is theirs; the bar takes taps once it knows, so a tap never acts on a guess (decision 129).
  const ready = db !== null && ownKnown;
  const mineType = mine?.type ?? (ready ? null : ownFromPost(reactions, userId));
  const byType = useMemo(
    () => reactionNames(reactions, mineType, userId, (id) => authors(id).name),
    [reactions, mineType, userId, authors],
  );

  const choose = (type: ReactionType) => {
    if (!db) return;
    // docs/behaviour.md, "Comments and reactions": a failed reaction is only logged.
    toggleReaction(db, postId, userId, type, mine ?? undefined).catch((error: unknown) =>
      console.error('Could not change the reaction', error),
    );
  };

  useEffect(listenForTooltips, []);
  // A phone cannot hover, and a tap on a reaction chooses it: "Who reacted" lists the names there (decision 128).
  const [showNames, setShowNames] = useState(false);
  const namesId = `reaction-names-${postId}`;
  return (
    <div className="reaction-bar" role="group" aria-label="Reactions">
      {REACTION_TYPES.map((type) => {
        const names = byType.get(type) ?? [];
        const own = mineType === type;
        // docs/behaviour.md, "Comments and reactions": a count is hidden at zero unless it is the user's own reaction.
        const count = names.length > 0 || own ? names.length : null;
        const { emoji, label } = REACTIONS[type];
        const tipId = `reaction-tip-${postId}-${type}`;
        return (
          <span key={type} className="reaction-slot">
            <button
              type="button"
              className={cx('reaction', own && 'reaction-mine')}
              aria-pressed={own}
              // The names are read after the button's name; a type nobody chose has none to read.
              aria-describedby={names.length > 0 ? tipId : undefined}
              // A new device's preview (decision 97): the card takes reactions once the database is open.
              disabled={!ready}
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
            <span role="tooltip" id={tipId} className="tooltip reaction-tip">
              {names.length > 0 ? (
                <>
                  <strong>{label}:</strong> {namesLine(names)}
                </>
              ) : (
                label
              )}
            </span>
          </span>
        );
      })}
      {byType.size > 0 ? (
        <button
          type="button"
          className="reaction-who"
          aria-expanded={showNames}
          aria-controls={showNames ? namesId : undefined}
          onClick={() => setShowNames(!showNames)}
        >
          Who reacted
        </button>
      ) : null}
      {showNames && byType.size > 0 ? (
        <ul id={namesId} className="reaction-who-list">
          {[...byType].map(([type, names]) => (
            <li key={type}>
              <span aria-hidden className="reaction-emoji">
                {REACTIONS[type].emoji}
              </span>{' '}
              <strong>{REACTIONS[type].label}:</strong> {namesLine(names)}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
