import { SearchX, Sparkles } from 'lucide-react';
import { Card } from '../../components/ui/card';

/** Three placeholder cards while the local store opens and the first sync is pending (docs/behaviour.md, "Feed"). */
export function FeedSkeleton() {
  return (
    <div className="feed-skeleton" role="status" aria-label="Loading posts">
      {[0, 1, 2].map((n) => (
        <Card key={n} className="post-card skeleton-card" aria-hidden>
          <div className="post-head">
            <span className="skeleton skeleton-avatar" />
            <div className="skeleton-lines">
              <span className="skeleton skeleton-line" style={{ width: '40%' }} />
              <span className="skeleton skeleton-line" style={{ width: '60%' }} />
            </div>
          </div>
          <span className="skeleton skeleton-line" style={{ width: '95%' }} />
          <span className="skeleton skeleton-line" style={{ width: '85%' }} />
          <span className="skeleton skeleton-line" style={{ width: '55%' }} />
        </Card>
      ))}
    </div>
  );
}

/** No post passes the filters, or there are none yet (docs/behaviour.md, "Feed"). */
export function FeedEmpty({ searching }: { searching: boolean }) {
  return (
    <Card className="feed-empty">
      <span className="card-icon" aria-hidden>
        {searching ? <SearchX size={26} /> : <Sparkles size={26} />}
      </span>
      <h2 className="feed-empty-title">No posts found</h2>
      <p className="muted">
        {searching ? 'Try adjusting your search terms.' : 'Be the first to share an update with your team!'}
      </p>
    </Card>
  );
}
