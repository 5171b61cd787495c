import { ACCOUNT_TYPE_LABELS, type AccountType } from '../../../schema/role-rules';
import { displayName } from '../../../schema/format';
import type { AppDeps } from '../../lib/context';
import { localDayAndHour } from '../../lib/time-zone';
import { queueMail } from '../mail/mail.service';
import { listAccessEndingBetween, listActiveSystemAdmins } from '../users/users.queries';
import { claimSetting, findSettingValue } from './admin.queries';
import { inTransaction } from '../../db/client';
import { startJob, type Job } from '../../lib/jobs';

/** Accounts ending this soon are listed in the daily e-mail (decision 147). */
export const ACCESS_DIGEST_WINDOW_MS = 48 * 60 * 60_000;
/** The provider's day (TIME_ZONE) the last e-mail went on, so a restart does not send a second one. */
const DIGEST_DAY_KEY = 'access_digest_day';

/** One line of the e-mail: name, type and end in the provider's time zone. */
function digestLine(
  row: { firstName: string; lastName: string; accountType: AccountType; accessEndsAt: number | null },
  zone: string,
) {
  const end = new Intl.DateTimeFormat('en-GB', { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
  return `- ${displayName(row)} (${ACCOUNT_TYPE_LABELS[row.accountType]}): access ends ${end.format(row.accessEndsAt ?? 0)}`;
}

/**
 * Once a day, e-mails every active System Administrator the accounts whose access ends within 48 hours, through the
 * mail outbox; nothing when there are none, and then a later check that day may still send (decision 147). Answers
 * how many e-mails were queued. The day is claimed in the transaction that queues them, so of two servers checking at
 * once (the job's lock is lost with its connection) one sends.
 */
export async function sendAccessDigest(deps: AppDeps): Promise<number> {
  const at = deps.now();
  const zone = deps.config.timeZone;
  const today = localDayAndHour(at, zone).day;
  if ((await findSettingValue(deps.db, DIGEST_DAY_KEY)) === today) return 0;
  const ending = await listAccessEndingBetween(deps.db, at, at + ACCESS_DIGEST_WINDOW_MS);
  if (ending.length === 0) return 0;
  const admins = await listActiveSystemAdmins(deps.db);
  const text = [
    `Access ends within 48 hours for ${ending.length === 1 ? 'this account' : `these ${ending.length} accounts`}:`,
    '',
    ...ending.map((row) => digestLine(row, zone)),
    '',
    'To extend one, edit its access end on the admin page.',
  ].join('\n');
  return inTransaction(deps, async (deps) => {
    if (!(await claimSetting(deps.db, DIGEST_DAY_KEY, today))) return 0;
    for (const admin of admins)
      await queueMail(deps, { to: admin.email, subject: 'Staff Portal: access ending soon', text });
    return admins.length;
  });
}

/** The daily e-mail's check, every `everyMs` (an hour); `check` runs one at once (tests). */
export function startAccessDigest(deps: AppDeps, everyMs: number): Job {
  return startJob(deps, 'The access ending e-mail', everyMs, () => sendAccessDigest(deps));
}
