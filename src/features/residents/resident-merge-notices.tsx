import { Info } from 'lucide-react';
import { useMemo, useSyncExternalStore } from 'react';
import { Button } from '../../components/ui/button';
import { Notice } from '../../components/ui/notice';
import type { ResidentLocal } from '../../db/collections';
import { dismissMergeNotice, mergeNoticesText, parseMergeNotices } from '../../db/merge-notices';
import { subscribeNoticeLists } from '../../db/notice-lists';
import { describeMerge } from './resident-actions';

/**
 * The user's profile edits the server merged with someone else's changes made meanwhile (decision 120): one notice
 * per profile naming whose fields were whose, until dismissed.
 */
export function ResidentMergeNotices({
  databaseName,
  residents,
}: {
  databaseName: string;
  residents: readonly ResidentLocal[];
}) {
  const text = useSyncExternalStore(subscribeNoticeLists, () => mergeNoticesText(databaseName));
  const notices = useMemo(() => parseMergeNotices(text).filter((notice) => notice.collection === 'residents'), [text]);
  if (notices.length === 0) return null;
  return (
    <section className="resident-merges" aria-label="Profiles someone else changed too">
      {notices.map((notice) => (
        <Notice key={notice.id} tone="info" role="status" icon={<Info aria-hidden size={18} />}>
          <p>{describeMerge(residents.find((r) => r.id === notice.id)?.name ?? '', notice, 'offline')}</p>
          <Button variant="outline" size="sm" onClick={() => dismissMergeNotice(databaseName, 'residents', notice.id)}>
            Dismiss
          </Button>
        </Notice>
      ))}
    </section>
  );
}
