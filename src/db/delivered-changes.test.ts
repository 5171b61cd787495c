import { describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../schema/sync-protocol';
import { deliveredChanges } from './delivered-changes';

const page = (through: number, count = 0) => ({
  documents: Array.from({ length: count }, (_, i) => ({ id: `p${i}` })),
  checkpoint: { seq: through - 1, id: 'x', before: null },
  through,
});
const event = (since: number, seq: number, ...ids: string[]): ChangeEvent => ({
  collection: 'posts',
  since,
  checkpoint: { seq, id: '~', before: null },
  documents: ids.map((id) => ({ id, at: seq })),
});
const at = (seq: number) => ({ seq, id: 'x', before: null });

describe('changes delivered by the live stream (decision 131)', () => {
  it('answers the next pull from events that follow on from what the device holds, merged by id', () => {
    const kept = deliveredChanges();
    kept.pulled('posts', page(10, 3), 500);
    expect(kept.keep(event(10, 12, 'a'))).toBe(true);
    kept.keep(event(12, 15, 'a', 'b'));
    expect(kept.take('posts', at(9))).toEqual({
      documents: [
        { id: 'a', at: 15 },
        { id: 'b', at: 15 },
      ],
      checkpoint: { seq: 15, id: '~', before: null },
    });
    // Nothing left: the next pull goes to the server.
    expect(kept.take('posts', { seq: 15, id: '~', before: null })).toBeNull();
    kept.keep(event(15, 16, 'c'));
    expect(kept.take('posts', { seq: 15, id: '~', before: null })?.documents).toEqual([{ id: 'c', at: 16 }]);
  });

  it('asks the server when it cannot be sure the device holds everything before an event', () => {
    const kept = deliveredChanges();
    kept.keep(event(10, 12, 'a'));
    expect(kept.take('posts', at(9))).toBeNull(); // no page yet
    kept.pulled('posts', page(10), 500);
    kept.keep(event(11, 12, 'a'));
    expect(kept.take('posts', at(9))).toBeNull(); // a gap: the change at 11 was not carried to this stream
    kept.keep(event(10, 12, 'a'));
    // No checkpoint after an empty first page (RxDB keeps none from it): the page's `through` is what counts.
    expect(kept.take('posts', undefined)?.documents).toEqual([{ id: 'a', at: 12 }]);
    kept.keep(event(10, 12, 'a'));
    expect(kept.take('posts', { seq: 9, id: '~', before: { seq: 3, id: 'x' } })).toBeNull(); // a fill
    kept.keep(event(10, 12, 'a'));
    expect(kept.take('posts', at(11))).toBeNull(); // full pages went past what the device is known to hold
  });

  it('learns what it holds only from short pages that say how far they reach', () => {
    const kept = deliveredChanges();
    kept.pulled('posts', page(10, 500), 500);
    kept.pulled('posts', { ...page(10, 2), through: undefined }, 500);
    kept.keep(event(10, 12, 'a'));
    expect(kept.take('posts', at(9))).toBeNull();
    kept.pulled('posts', page(10, 2), 500);
    kept.keep(event(10, 12, 'a'));
    expect(kept.take('posts', at(9))).not.toBeNull();
  });

  it('forgets events a later page already brought, and keeps the part that goes further', () => {
    const kept = deliveredChanges();
    kept.pulled('posts', page(10), 500);
    kept.keep(event(10, 12, 'a'));
    kept.keep(event(12, 20, 'b'));
    kept.pulled('posts', page(14), 500);
    // The first event is older than the page: only the second, which still follows on, answers.
    expect(kept.take('posts', at(13))).toEqual({
      documents: [{ id: 'b', at: 20 }],
      checkpoint: { seq: 20, id: '~', before: null },
    });
  });

  it('keeps nothing from an announcement, and drops what it kept when told to', () => {
    const kept = deliveredChanges();
    expect(kept.keep({ collection: 'posts' })).toBe(false);
    kept.pulled('posts', page(10), 500);
    kept.keep(event(10, 12, 'a'));
    kept.drop();
    expect(kept.take('posts', at(9))).toBeNull();
  });
});
