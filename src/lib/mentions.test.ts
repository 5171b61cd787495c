import { describe, expect, it } from 'vitest';
import { splitMentions } from '../../schema/mention-rules';
import {
  conversationMentionCandidates,
  insertMention,
  matchMentionCandidates,
  mentionCandidates,
  mentionNamesOf,
  mentionQueryAt,
  mentionsInText,
  suggestionKey,
} from './mentions';

const user = (id: string, firstName: string, lastName: string, isActive = true, houses: string[] = []) => ({
  id,
  firstName,
  lastName,
  isActive,
  houses,
});
const users = [
  user('me', 'Mo', 'Self'),
  user('ann', 'Ann', 'Lee', true, ['Giles House']),
  user('bob', 'Bob', 'Annand'),
  user('gone', 'Anna', 'Gone', false),
];
const candidates = mentionCandidates(users, ['Giles House', 'Tudor Way'], 'me');
const names = new Map([
  ['ann', 'Ann Lee'],
  ['bob', 'Bob Annand'],
]);
const nameOf = (id: string) => names.get(id) ?? 'Deleted User';

describe('what typing @ offers', () => {
  it('offers active colleagues but oneself by name, then the houses', () => {
    expect(candidates).toEqual([
      { mention: 'ann', label: 'Ann Lee', detail: 'Giles House' },
      { mention: 'bob', label: 'Bob Annand', detail: '' },
      { mention: 'house:Giles House', label: 'Giles House', detail: 'House' },
      { mention: 'house:Tudor Way', label: 'Tudor Way', detail: 'House' },
    ]);
  });

  it('reads the @query before the caret: after a space or at the start, on one line', () => {
    expect(mentionQueryAt('Hi @an', 6)).toEqual({ start: 3, query: 'an' });
    expect(mentionQueryAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionQueryAt('Hi @Ann Le and', 10)).toEqual({ start: 3, query: 'Ann Le' });
    expect(mentionQueryAt('mail me@home', 12)).toBeNull();
    expect(mentionQueryAt('Hi @an\nx', 8)).toBeNull();
    expect(mentionQueryAt('Hi @ ann', 8)).toBeNull();
    expect(mentionQueryAt('No at sign', 5)).toBeNull();
  });

  it('matches names starting with the query first, then names with a word starting with it', () => {
    expect(matchMentionCandidates(candidates, 'ann').map((c) => c.mention)).toEqual(['ann', 'bob']);
    expect(matchMentionCandidates(candidates, 'LEE').map((c) => c.mention)).toEqual(['ann']);
    expect(matchMentionCandidates(candidates, 'tudor').map((c) => c.mention)).toEqual(['house:Tudor Way']);
    expect(matchMentionCandidates(candidates, '')).toHaveLength(4);
    expect(matchMentionCandidates(candidates, '', 2)).toHaveLength(2);
  });

  it('writes the picked name in place of the query and puts the caret after it', () => {
    expect(insertMention('Hi @an, thanks', { start: 3, query: 'an' }, 'Ann Lee')).toEqual({
      text: 'Hi @Ann Lee , thanks',
      caret: 12,
    });
  });
});

describe('the suggestion list and its keys', () => {
  const open = { open: true, active: 0 };
  it('moves with the arrows, wrapping, and picks with Enter or Tab', () => {
    expect(suggestionKey(open, 'ArrowDown', 3)).toEqual({
      state: { open: true, active: 1 },
      pick: null,
      handled: true,
    });
    expect(suggestionKey(open, 'ArrowUp', 3).state.active).toBe(2);
    expect(suggestionKey({ open: true, active: 2 }, 'ArrowDown', 3).state.active).toBe(0);
    expect(suggestionKey({ open: true, active: 1 }, 'Enter', 3)).toEqual({
      state: { open: false, active: 0 },
      pick: 1,
      handled: true,
    });
    expect(suggestionKey({ open: true, active: 2 }, 'Tab', 3).pick).toBe(2);
  });

  it('closes with Escape, and leaves every key to the field while closed or empty', () => {
    expect(suggestionKey(open, 'Escape', 3)).toEqual({ state: { open: false, active: 0 }, pick: null, handled: true });
    expect(suggestionKey({ open: false, active: 0 }, 'Enter', 3).handled).toBe(false);
    expect(suggestionKey(open, 'Enter', 0).handled).toBe(false);
    expect(suggestionKey(open, 'a', 3).handled).toBe(false);
  });
});

describe('mentions of a draft and of a text', () => {
  it('sends only the mentions whose @Name is still in the text, each once, within the limit', () => {
    const mentions = ['ann', 'bob', 'house:Giles House', 'ann'];
    expect(mentionsInText(mentions, 'Thanks @Ann Lee and @Giles House', nameOf, 20)).toEqual([
      'ann',
      'house:Giles House',
    ]);
    expect(mentionsInText(mentions, 'Thanks @Ann Lee and @Bob Annand', nameOf, 1)).toEqual(['ann']);
  });

  it('shows each mention as its name chip, text only, longer names first', () => {
    const shown = mentionNamesOf(['ann', 'house:Giles House'], nameOf)!;
    expect(splitMentions('Hi @Ann Lee, see @Giles House <b>!', shown)).toEqual([
      { kind: 'text', text: 'Hi ' },
      { kind: 'mention', text: '@Ann Lee', mention: 'ann' },
      { kind: 'text', text: ', see ' },
      { kind: 'mention', text: '@Giles House', mention: 'house:Giles House' },
      { kind: 'text', text: ' <b>!' },
    ]);
    const both = new Map([
      ['a', 'Ann'],
      ['b', 'Ann Lee'],
    ]);
    expect(splitMentions('@Ann Lee', both)).toEqual([{ kind: 'mention', text: '@Ann Lee', mention: 'b' }]);
    expect(mentionNamesOf([], nameOf)).toBeUndefined();
  });
});

describe('what @ offers in a conversation', () => {
  it('is its members among the colleagues, and in a house chat only its own house', () => {
    const candidates = [
      { mention: 'ann', label: 'Ann Lee', detail: '' },
      { mention: 'bob', label: 'Bob Annand', detail: '' },
      { mention: 'cat', label: 'Cat Ng', detail: '' },
      { mention: 'house:Giles House', label: 'Giles House', detail: 'House' },
      { mention: 'house:Tudor Way', label: 'Tudor Way', detail: 'House' },
    ];
    expect(conversationMentionCandidates(candidates, ['me', 'ann', 'cat'], null).map((c) => c.mention)).toEqual([
      'ann',
      'cat',
    ]);
    expect(conversationMentionCandidates(candidates, ['me', 'bob'], 'Giles House').map((c) => c.mention)).toEqual([
      'bob',
      'house:Giles House',
    ]);
  });
});
