import { describe, expect, it } from 'vitest';
import { commentsLabel } from './post-comments';

describe('the comments toggle’s words', () => {
  it('words the comment count as "{n} comments"', () => {
    expect(commentsLabel(0, true)).toBe('0 comments');
    expect(commentsLabel(1, true)).toBe('1 comment');
    expect(commentsLabel(12, true)).toBe('12 comments');
  });

  it('gives no number while it is not known (decisions 97 and 100)', () => {
    // No database yet: a new device's preview.
    expect(commentsLabel(null, false)).toBe('Comments');
    expect(commentsLabel(null, true)).toBe('Comments');
    // None here yet while the comments' first sync runs: there may be some on their way.
    expect(commentsLabel(0, false)).toBe('Comments');
    // Some already here: the number shows, and grows as the rest arrive.
    expect(commentsLabel(3, false)).toBe('3 comments');
  });
});
