import { useAtomValue } from 'jotai';
import { NAMED_HOUSES } from '../../schema/constants';
import { configAtom } from './public-config';

/** The ten houses from GET /api/config; the nine named ones while it has not arrived (offline start). */
export function useHouses(): readonly string[] {
  const { houses } = useAtomValue(configAtom);
  return houses.length > 0 ? houses : NAMED_HOUSES;
}
