import { exclusive } from '../../db/client';
import { LIMITS } from '../../../schema/constants';
import type { AppDeps } from '../../lib/context';
import {
  claimMail,
  deleteFinishedMailBefore,
  findNextMailDueAt,
  insertMail,
  listDueMail,
  markMailFailed,
  markMailSent,
  type MailRow,
} from './mail.queries';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  /** The link the mail carries: logged for a developer when there is no SMTP, never in production. */
  link?: string;
}

/** The first retry waits this long, each next one twice as long, up to an hour. */
const RETRY_FIRST_MS = 30_000;
const RETRY_MAX_MS = 60 * 60_000;
/** A mail not sent within an invitation's lifetime carries only dead links: it is given up and its body erased. */
const GIVE_UP_AFTER_MS = LIMITS.inviteTokenMs;
/** Finished mails (without their bodies) are kept this long, to see in the database what was sent. */
const KEEP_FINISHED_MS = 30 * 24 * 60 * 60_000;
/** With nothing due, the outbox still looks this often (a mail written by another path, a clock moved). */
const IDLE_CHECK_MS = 60_000;
/** A graceful close waits at most this long for a send in flight. */
const STOP_WAIT_MS = 5_000;
const BATCH = 20;
/** A claimed mail is not due again for this long, past any send's SMTP timeouts: one whose sender died is retried. */
const CLAIM_MS = 10 * 60_000;

/**
 * Puts a mail in the outbox; the worker sends it after the answer. Call it inside the transaction that writes
 * the token the mail carries, so both commit together (decision 124).
 */
export async function queueMail(deps: AppDeps, mail: OutgoingMail): Promise<number> {
  const id = await insertMail(deps.db, { to: mail.to, subject: mail.subject, text: mail.text, at: deps.now() });
  if (!deps.config.smtpUrl) {
    deps.log.info(
      deps.config.production
        ? `Mail ${id} is waiting in the outbox (mail_outbox)`
        : `Mail ${id} to ${mail.to} is in the outbox${mail.link ? `: ${mail.link}` : ''}`,
    );
  }
  deps.outbox.wake();
  return id;
}

/** The delay before retry number `attempts` (1 for the first failure). */
export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_FIRST_MS * 2 ** (attempts - 1), RETRY_MAX_MS);
}

/** What a graceful close tells a sender: take no more mail; and, once it has waited, record no send in flight. */
export interface MailSender {
  stopped: boolean;
  abandoned: boolean;
}

/** Sends one claimed mail; a failure is recorded for the next attempt. Answers whether it went. */
async function deliver(deps: Omit<AppDeps, 'outbox'>, sender: MailSender, mail: MailRow & { text: string }) {
  try {
    await deps.mailer.send({ id: mail.id, to: mail.to, subject: mail.subject, text: mail.text });
    if (!sender.abandoned) await markMailSent(deps.db, mail.id, deps.now());
    return true;
  } catch (error) {
    if (sender.abandoned) return false;
    const at = deps.now();
    const attempts = mail.attempts + 1;
    const giveUp = at - mail.createdAt >= GIVE_UP_AFTER_MS;
    const nextAttemptAt = at + retryDelayMs(attempts);
    const lastError = error instanceof Error ? error.message.slice(0, 500) : String(error).slice(0, 500);
    await markMailFailed(deps.db, mail.id, { attempts, nextAttemptAt, lastError, giveUp });
    const then = giveUp ? 'given up' : `next attempt at ${new Date(nextAttemptAt).toISOString()}`;
    deps.log.error(`Mail ${mail.id} to ${mail.to} could not be sent (attempt ${attempts}; ${then}):`, lastError);
    return false;
  }
}

/**
 * Sends the mail due now, one at a time; answers how many went. Each mail is claimed before it is sent, so of two
 * senders at once (servers whose outbox lock was lost with its connection) only one sends it.
 */
export async function sendDueMail(
  deps: Omit<AppDeps, 'outbox'>,
  sender: MailSender = { stopped: false, abandoned: false },
): Promise<number> {
  await deleteFinishedMailBefore(deps.db, deps.now() - KEEP_FINISHED_MS);
  let sent = 0;
  for (;;) {
    const due = await listDueMail(deps.db, deps.now(), BATCH);
    if (due.length === 0) return sent;
    for (const mail of due) {
      if (sender.stopped) return sent;
      if (mail.text === null || !(await claimMail(deps.db, mail, deps.now() + CLAIM_MS))) continue;
      if (await deliver(deps, sender, { ...mail, text: mail.text })) sent += 1;
    }
  }
}

export interface MailOutbox {
  /** Looks for due mail at once (after a mail is queued). */
  wake: () => void;
  /** Resolves when the outbox has nothing due left to try now (tests). */
  settle: () => Promise<void>;
  /** Stops the worker, letting a send in flight finish for a few seconds. */
  stop: () => Promise<void>;
}

/** The worker of the server process that sends due mail, one at a time, with exponential back-off. */
export function startMailOutbox(deps: Omit<AppDeps, 'outbox'>): MailOutbox {
  const sender: MailSender = { stopped: false, abandoned: false };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;

  const schedule = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref();
  };

  async function nextCheckMs(): Promise<number> {
    const next = await findNextMailDueAt(deps.db);
    return next === null ? IDLE_CHECK_MS : Math.min(Math.max(next - deps.now(), 0), IDLE_CHECK_MS);
  }

  function run(): void {
    if (sender.stopped) return;
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = (async () => {
      let nextMs = IDLE_CHECK_MS;
      try {
        // Of several servers on one database, one sends at a time: the others' outboxes skip the turn.
        await exclusive(deps.db, 'The mail outbox', () => sendDueMail(deps, sender));
      } catch (error) {
        deps.log.error('The mail outbox failed:', error);
      }
      try {
        if (!again) nextMs = await nextCheckMs();
      } catch (error) {
        deps.log.error('The mail outbox failed:', error);
      }
      running = null;
      if (!sender.stopped) schedule(again ? 0 : nextMs);
    })();
  }

  schedule(0);
  return {
    wake: () => {
      if (sender.stopped) return;
      if (running) again = true;
      else schedule(0);
    },
    async settle() {
      while (running || (!sender.stopped && (await listDueMail(deps.db, deps.now(), 1)).length > 0)) {
        if (!running) run();
        await running;
      }
    },
    async stop() {
      sender.stopped = true;
      clearTimeout(timer);
      if (running) {
        let wait: NodeJS.Timeout | undefined;
        await Promise.race([running, new Promise((resolve) => (wait = setTimeout(resolve, STOP_WAIT_MS)))]);
        clearTimeout(wait);
      }
      sender.abandoned = true;
    },
  };
}
