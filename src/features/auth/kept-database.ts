import { KEPT_DB } from '../../../schema/offline';

/** Whether this browser holds anyone's kept work (decision 114), asked without loading the kept store's code. */
export async function keptDatabaseExists(): Promise<boolean> {
  if (typeof indexedDB === 'undefined' || typeof indexedDB.databases !== 'function') return false;
  return (await indexedDB.databases()).some((info) => info.name === KEPT_DB);
}
