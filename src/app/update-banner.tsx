import { useAtomValue } from 'jotai';
import { RefreshCw } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../components/ui/button';
import { activateWaitingWorker, waitingWorkerAtom } from '../lib/service-worker';

/**
 * sessionStorage key: "Later" hides the banner for the rest of the browser session (docs/behaviour.md, "App updates").
 */
export const UPDATE_DISMISSED_KEY = 'updateBannerDismissed';

/** "App Update Available" when a new version waits (docs/behaviour.md, "App updates"). */
export function UpdateBanner() {
  const worker = useAtomValue(waitingWorkerAtom);
  const [dismissed, setDismissed] = useState(() => sessionStorage.getItem(UPDATE_DISMISSED_KEY) === 'true');
  if (!worker || dismissed) return null;
  return (
    <div className="update-banner" role="status" aria-labelledby="update-banner-title">
      <RefreshCw aria-hidden size={18} />
      <div className="update-banner-text">
        <p id="update-banner-title" className="update-banner-title">
          App Update Available
        </p>
        <p className="update-banner-body">A new version of Staff Portal is ready.</p>
      </div>
      <Button size="sm" onClick={activateWaitingWorker}>
        Update Now
      </Button>
      <Button
        size="sm"
        variant="ghost"
        onClick={() => {
          sessionStorage.setItem(UPDATE_DISMISSED_KEY, 'true');
          setDismissed(true);
        }}
      >
        Later
      </Button>
    </div>
  );
}
