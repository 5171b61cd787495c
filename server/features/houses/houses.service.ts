import { NO_HOUSE } from '../../../schema/alerts';
import { listHouses } from '../../../schema/constants';
import type { AppDeps } from '../../lib/context';
import { csvLine } from '../../lib/csv';
import { badRequest } from '../../lib/errors';
import { listUserHouses, replaceUserHouses } from './houses.queries';

/** Refuses any name that is not one of the ten houses (the tenth is the organisation's name). */
export function checkHouseNames(deps: AppDeps, names: string[]): void {
  const houses = listHouses(deps.config.orgName);
  const unknown = names.find((name) => !houses.includes(name));
  if (unknown !== undefined) badRequest(`Unknown house: ${unknown}`);
}

/** Houses in the order of the house list; names no longer in it (a renamed organisation) last. */
export function sortHouses(deps: AppDeps, names: string[]): string[] {
  return [...names].sort(houseOrder(deps));
}

/** Each user's houses, in house-list order: of the given users, or of everyone. */
export async function housesByUser(deps: AppDeps, userIds?: string[]): Promise<Map<string, string[]>> {
  return housesOfPairs(deps, await listUserHouses(deps.db, userIds));
}

/** (user, house) pairs as each user's houses, in house-list order; names no longer in it last. */
export function housesOfPairs(
  deps: AppDeps,
  pairs: readonly { userId: string; house: string }[],
): Map<string, string[]> {
  const inOrder = houseOrder(deps);
  const byUser = new Map<string, string[]>();
  for (const { userId, house } of pairs) {
    const list = byUser.get(userId);
    if (list) list.push(house);
    else byUser.set(userId, [house]);
  }
  for (const list of byUser.values()) {
    if (list.length > 1) list.sort(inOrder);
  }
  return byUser;
}

/** Compares houses as the house list orders them; houses no longer in it after, by name. */
export function houseOrder(deps: AppDeps): (a: string, b: string) => number {
  const order = listHouses(deps.config.orgName);
  const ranks = new Map(order.map((name, i) => [name, i]));
  const rank = (name: string) => ranks.get(name) ?? order.length;
  return (a, b) => rank(a) - rank(b) || a.localeCompare(b);
}

/**
 * A report's members grouped by house (the alert report and the confirmation report, decisions 32 and 136): the
 * house list's order, then houses no longer in it as the members name them, then "No house assigned"; a member of
 * several houses is listed under each, and only groups with members are kept. `summarise` counts one group.
 */
export function groupByHouse<M extends { houses: string[] }, S extends object>(
  houseList: readonly string[],
  members: M[],
  summarise: (inGroup: M[]) => S,
): ({ house: string } & S & { members: M[] })[] {
  const order = [...houseList];
  for (const member of members) for (const house of member.houses) if (!order.includes(house)) order.push(house);
  return [...order, NO_HOUSE]
    .map((house) => {
      const inGroup = members.filter((m) => (house === NO_HOUSE ? m.houses.length === 0 : m.houses.includes(house)));
      return { house, ...summarise(inGroup), members: inGroup };
    })
    .filter((group) => group.members.length > 0);
}

/** A post's stored list of houses (JSON text, as `audienceHouses` is kept); anything unreadable is no house. */
export function parseHouseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

/** A grouped report as CSV lines: the header, then one line per house and member, the house first (decision 130). */
export function* houseGroupsCsv<M>(
  columns: readonly string[],
  groups: readonly { house: string; members: readonly M[] }[],
  cells: (member: M) => (string | number | boolean | null)[],
): Generator<string> {
  yield csvLine(columns);
  for (const group of groups) for (const member of group.members) yield csvLine([group.house, ...cells(member)]);
}

/** Sets the houses a staff member works in; the synced directory shows them, so it is told. */
export async function setUserHouses(deps: AppDeps, userId: string, houses: string[]): Promise<string[]> {
  checkHouseNames(deps, houses);
  await replaceUserHouses(deps.db, userId, houses, deps.now());
  deps.hub.notify('users');
  return sortHouses(deps, houses);
}
