import { describe, expect, it } from 'vitest';
import { NO_HOUSE } from '../../../schema/alerts';
import { groupByHouse, houseGroupsCsv, parseHouseList } from './houses.service';

const member = (name: string, houses: string[], done: boolean) => ({ name, houses, done });
const summarise = (inGroup: { done: boolean }[]) => ({ done: inGroup.filter((m) => m.done).length });

describe('groupByHouse, the grouping of the alert and confirmation reports', () => {
  it('lists groups in house-list order, a member under each of their houses, empty houses left out', () => {
    const ann = member('Ann', ['Oak', 'Elm'], true);
    const bob = member('Bob', ['Elm'], false);
    const groups = groupByHouse(['Elm', 'Ash', 'Oak'], [ann, bob], summarise);
    expect(groups).toEqual([
      { house: 'Elm', done: 1, members: [ann, bob] },
      { house: 'Oak', done: 1, members: [ann] },
    ]);
    expect(Object.keys(groups[0])).toEqual(['house', 'done', 'members']);
  });

  it('puts houses no longer in the list after it, as members name them, and members of no house last', () => {
    const cat = member('Cat', ['Old Mill'], false);
    const dan = member('Dan', [], true);
    const eve = member('Eve', ['Ash'], false);
    expect(groupByHouse(['Ash'], [dan, cat, eve], summarise).map(({ house, done }) => [house, done])).toEqual([
      ['Ash', 0],
      ['Old Mill', 0],
      [NO_HOUSE, 1],
    ]);
  });

  it('writes a grouped report as CSV, the house first on every line, a member once per house', () => {
    const ann = member('Ann', ['Oak', 'Elm'], true);
    const groups = groupByHouse(['Elm', 'Oak'], [ann], summarise);
    expect([...houseGroupsCsv(['house', 'name', 'done'], groups, (m) => [m.name, m.done])]).toEqual([
      '"house","name","done"\r\n',
      '"Elm","Ann","true"\r\n',
      '"Oak","Ann","true"\r\n',
    ]);
  });

  it('reads a stored house list, and anything unreadable as no house', () => {
    expect(parseHouseList('["Oak",3,"Elm"]')).toEqual(['Oak', 'Elm']);
    expect(parseHouseList('not json')).toEqual([]);
    expect(parseHouseList('{"house":"Oak"}')).toEqual([]);
  });
});
