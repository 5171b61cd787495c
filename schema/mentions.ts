/** @mentions in posts and comments (decision 144): the zod schema of the list a post or comment carries. */
import { z } from 'zod';
import { MENTIONS_MAX } from './mention-rules';

export * from './mention-rules';

/** The longest entry: a user id, or the prefix and a house name. */
const MENTION_MAX_LENGTH = 120;

export const MENTION_MESSAGES = {
  list: 'mentions must be a list of user ids or house:<house name>',
  tooMany: `At most ${MENTIONS_MAX} people or houses can be mentioned`,
  entry: 'A mention must be a user id or house:<house name>',
  notFound: 'Mention not found',
} as const;

/**
 * `mentions` of a post or comment: user ids, or `house:<name>`. Only the shape is checked here; the server keeps
 * the ones that name an active colleague or one of the houses and drops the rest (decision 144). Repeats count once.
 */
export const MentionsSchema = z
  .array(
    z
      .string({ message: MENTION_MESSAGES.entry })
      .trim()
      .min(1, MENTION_MESSAGES.entry)
      .max(MENTION_MAX_LENGTH, MENTION_MESSAGES.entry),
    { message: MENTION_MESSAGES.list },
  )
  .max(MENTIONS_MAX, MENTION_MESSAGES.tooMany)
  .transform((mentions) => [...new Set(mentions)]);
