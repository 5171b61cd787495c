import { useEffect, useState } from 'react';
import { KEPT_CHANGED_EVENT } from '../../../schema/offline';
import { Notice } from '../../components/ui/notice';
import { keptDatabaseExists } from './kept-database';

/** How many items are kept sealed on this device; the store's code is loaded only when it exists. */
async function countKept(): Promise<number> {
  if (!(await keptDatabaseExists())) return 0;
  const { countKeptItems } = await import('../../db/kept-store');
  return countKeptItems();
}

/** The sign-in screen says what waits on this device from an earlier session (decision 114). */
export function KeptWorkNotice() {
  const [count, setCount] = useState(0);
  useEffect(() => {
    let current = true;
    const recount = () =>
      void countKept()
        .then((found) => current && setCount(found))
        .catch((error: unknown) => console.error('Could not count kept items', error));
    recount();
    // A session that has just ended may still be sealing its work when this screen opens.
    globalThis.addEventListener(KEPT_CHANGED_EVENT, recount);
    return () => {
      current = false;
      globalThis.removeEventListener(KEPT_CHANGED_EVENT, recount);
    };
  }, []);
  if (count === 0) return null;
  return (
    <Notice tone="info" role="status" className="kept-work-notice">
      {count === 1 ? '1 unsent item is' : `${count} unsent items are`} waiting on this device and will be sent after
      signing in.
    </Notice>
  );
}
