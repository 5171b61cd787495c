import { describe, expect, it } from 'vitest';
import { namesLine, ownFromPost, reactionNames } from './reaction-names';

describe('namesLine', () => {
  it('lists up to five names', () => {
    expect(namesLine(['You'])).toBe('You');
    expect(namesLine(['A', 'B', 'C', 'D', 'E'])).toBe('A, B, C, D, E');
  });

  it('then says how many others', () => {
    expect(namesLine(['A', 'B', 'C', 'D', 'E', 'F'])).toBe('A, B, C, D, E and 1 other');
    expect(namesLine(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'])).toBe('A, B, C, D, E and 3 others');
  });
});

describe('reactionNames', () => {
  const nameOf = (id: string) => `Name ${id}`;

  it("counts the post's lists per type, in the order they were chosen", () => {
    const names = reactionNames({ like: ['a', 'b'], sad: ['c'] }, null, 'me', nameOf);
    expect([...names]).toEqual([
      ['like', ['Name a', 'Name b']],
      ['sad', ['Name c']],
    ]);
  });

  it("puts the user's own reaction first as You, from their own document rather than the post", () => {
    // The post still lists the user under their old choice (like): their own document says wow now.
    const names = reactionNames({ like: ['me', 'a'], wow: ['b'] }, 'wow', 'me', nameOf);
    expect(names.get('like')).toEqual(['Name a']);
    expect(names.get('wow')).toEqual(['You', 'Name b']);
  });

  it('leaves out a type that only the user had chosen once they take it back', () => {
    expect([...reactionNames({ love: ['me'] }, null, 'me', nameOf)]).toEqual([]);
    expect([...reactionNames(undefined, 'love', 'me', nameOf)]).toEqual([['love', ['You']]]);
  });

  it('gives the tooltip its five names and the number of others', () => {
    const many = Array.from({ length: 8 }, (_, i) => `u${i}`);
    expect(namesLine(reactionNames({ like: many }, 'like', 'me', nameOf).get('like')!)).toBe(
      'You, Name u0, Name u1, Name u2, Name u3 and 4 others',
    );
  });
});

describe("the user's own reaction from the post's lists", () => {
  it('is the type whose list holds the user, or none', () => {
    expect(ownFromPost({ like: ['ann'], love: ['me', 'bob'] }, 'me')).toBe('love');
    expect(ownFromPost({ like: ['ann'] }, 'me')).toBeNull();
    expect(ownFromPost(undefined, 'me')).toBeNull();
  });
});
