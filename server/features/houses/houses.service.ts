import { listHouses } from '../../../schema/constants';
import type { AppDeps } from '../../lib/context';
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
  const order = listHouses(deps.config.orgName);
  const rank = (name: string) => (order.includes(name) ? order.indexOf(name) : order.length);
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Each user's houses, in house-list order: of the given users, or of everyone. */
export function housesByUser(deps: AppDeps, userIds?: string[]): Map<string, string[]> {
  const byUser = new Map<string, string[]>();
  for (const { userId, house } of listUserHouses(deps.db, userIds)) {
    const list = byUser.get(userId) ?? [];
    list.push(house);
    byUser.set(userId, list);
  }
  for (const [userId, list] of byUser) byUser.set(userId, sortHouses(deps, list));
  return byUser;
}

/** Sets the houses a staff member works in; the synced directory shows them, so it is told. */
export function setUserHouses(deps: AppDeps, userId: string, houses: string[]): string[] {
  checkHouseNames(deps, houses);
  replaceUserHouses(deps.db, userId, houses, deps.now());
  deps.hub.notify('users');
  return sortHouses(deps, houses);
}
