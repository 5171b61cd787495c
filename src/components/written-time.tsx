import { MINUTE_MS } from '../../schema/constants';
import { formatDate, formatDateTime, formatTime } from '../../schema/format';

/**
 * When something was written (the device's time, decision 119). One that reached the server more than a minute
 * later, written offline, also says when it was sent, so a late arrival is not taken for a late reply:
 * "22:16 · sent 22:18". `dated` shows the date too (posts, comments), not repeated for a send the same day.
 */
export function WrittenTime({
  writtenAt,
  arrivedAt,
  pending,
  dated = false,
  className,
}: {
  writtenAt: number;
  /** When the server received it (its createdAt); not shown while the item is still waiting to be sent. */
  arrivedAt: number;
  pending: boolean;
  dated?: boolean;
  className?: string;
}) {
  const sentLater = !pending && arrivedAt - writtenAt > MINUTE_MS;
  const sameDay = formatDate(arrivedAt) === formatDate(writtenAt);
  return (
    <span className={className}>
      <time dateTime={new Date(writtenAt).toISOString()}>
        {dated ? formatDateTime(writtenAt) : formatTime(writtenAt)}
      </time>
      {sentLater ? (
        <span className="sent-later">
          {' · sent '}
          <time dateTime={new Date(arrivedAt).toISOString()}>
            {dated && !sameDay ? formatDateTime(arrivedAt) : formatTime(arrivedAt)}
          </time>
        </span>
      ) : null}
    </span>
  );
}
