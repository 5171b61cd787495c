import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NAMED_HOUSES } from '../schema/constants';
import { seededRandom } from '../schema/seeded-random';
import type { PostCategory, ReactionType } from '../schema/posts';
import type { Role } from '../schema/roles';
import { ensureClientBuilt } from './build-client';
import { ConfigError, loadConfig } from './config';
import { closeDb, inTransaction, openDb, type Db } from './db/client';
import { addComment } from './features/comments/comments.service';
import { insertPost } from './features/posts/posts.queries';
import { createPost } from './features/posts/posts.service';
import { setReaction } from './features/reactions/reactions.service';
import { createSyncHub } from './features/sync/sync.hub';
import { findUserById, insertUser } from './features/users/users.queries';
import { toCurrentUser } from './features/users/users.service';
import type { AppDeps, SessionUser } from './lib/context';
import { hashPassword } from './lib/crypto';
import { databaseFile, startServer } from './server';

/** Every demo account shares this password; the data folder is thrown away when the demo stops. */
export const DEMO_PASSWORD = 'Demo!Pass2026';

const STAFF: [string, string, Role][] = [
  ['Sarah', 'Mitchell', 'system_admin'],
  ['James', 'Okafor', 'admin'],
  ['Priya', 'Sharma', 'admin'],
  ['Tom', 'Barker', 'staff'],
  ['Aisha', 'Begum', 'staff'],
  ['Liam', 'Doyle', 'staff'],
  ['Chloe', 'Evans', 'staff'],
  ['Marek', 'Nowak', 'staff'],
  ['Grace', 'Adeyemi', 'staff'],
  ['Owen', 'Price', 'staff'],
  ['Hannah', 'Clarke', 'staff'],
  ['Daniel', 'Hughes', 'staff'],
];

/** The organisation's own house (the tenth); replaced by ORG_NAME when the feed is written. */
const ORG_HOUSE = '{org}';

interface DemoPost {
  category: PostCategory;
  content: string;
  urgent?: boolean;
  houses?: string[];
}

/** Everyday feed posts: news, repairs, outings, pay and rota swaps; nothing about anyone's health or care. */
const POSTS: DemoPost[] = [
  {
    category: 'company_announcement',
    content:
      'Welcome to the new Staff Portal! This is where we share news, rotas and updates across all our houses.\nPlease take a minute to add a profile picture.',
  },
  {
    category: 'company_announcement',
    content:
      'Reminder: the staff survey closes on Friday. It takes about ten minutes and every answer is anonymous.\nhttps://survey.example.org/staff',
  },
  {
    category: 'company_announcement',
    content: 'Well done to the team at Tudor Way for a glowing inspection report this week. Thank you all!',
  },
  {
    category: 'company_announcement',
    content:
      'The office is closed on Monday for the bank holiday. The on-call number is on the noticeboard in every house.',
  },
  {
    category: 'company_announcement',
    urgent: true,
    content:
      'Fire alarm testing across all houses tomorrow between 10:00 and 12:00. Please let everyone know in advance so nobody is alarmed.',
  },
  {
    category: 'company_announcement',
    content: 'Three new starters join us this month. Please make them welcome when you see them on shift.',
  },
  {
    category: 'company_announcement',
    content:
      'Our summer fair is booked for the last Saturday of June at Chartwell & Community. Volunteers for stalls, please comment below.',
  },
  {
    category: 'company_announcement',
    content:
      'Shift leaders meeting on Wednesday at 14:00 in the training room at Main Road. Tea and biscuits provided.',
  },
  {
    category: 'company_announcement',
    urgent: true,
    content:
      'Phone lines at head office are down this morning. Please use the office mobile, 07700 900123, until further notice.',
  },
  {
    category: 'company_announcement',
    content: 'Thank you to everyone who joined the charity walk last weekend: we raised £1,240!',
  },
  {
    category: 'company_announcement',
    content: 'Manual handling refresher sessions are open for booking. Sign up with your shift leader.',
  },
  {
    category: 'buildings_maintenance',
    content: 'The boiler at Giles House has been serviced; hot water should be back to normal from this afternoon.',
  },
  {
    category: 'buildings_maintenance',
    urgent: true,
    content:
      'Water leak in the kitchen at Hanover Drive. Please keep the floor clear and use the side door until the plumber has been.',
  },
  {
    category: 'buildings_maintenance',
    content:
      "New keypad codes for the garden gates go live on Monday. Shift leaders have them; please don't write them down.",
  },
  {
    category: 'buildings_maintenance',
    content: 'Gardeners are at The Lodges on Thursday morning, so the car park will be partly closed.',
  },
  {
    category: 'buildings_maintenance',
    content: 'The Wi-Fi in the lounge at Westminster Croft has been upgraded. Let me know if it still drops out.',
  },
  {
    category: 'buildings_maintenance',
    content: 'The light in the upstairs corridor at Apps House has gone again. Repair request logged.',
  },
  {
    category: 'buildings_maintenance',
    content:
      'Painters start in the dining room at Flora Innes House next week. Meals will be served in the conservatory for three days.',
  },
  {
    category: 'buildings_maintenance',
    content:
      'Reminder: report broken equipment on the maintenance form so it gets tracked.\nhttps://forms.example.org/maintenance',
  },
  {
    category: 'buildings_maintenance',
    content: 'Washing machine 2 at Main Road is back in action after the repair.',
  },
  {
    category: 'buildings_maintenance',
    content: 'The lift at Chartwell & Community is being inspected on Tuesday between 9 and 11.',
  },
  {
    category: 'buildings_maintenance',
    content: 'Could whoever borrowed the long ladder from Tudor Way please bring it back? Thanks!',
  },
  {
    category: 'residents_activities',
    houses: ['Giles House'],
    content: 'Baking afternoon at Giles House: lemon drizzle and scones. Everyone who joined in did brilliantly.',
  },
  {
    category: 'residents_activities',
    houses: ['The Lodges'],
    content: 'Film night at The Lodges on Friday. Voting for the film is open until Wednesday!',
  },
  {
    category: 'residents_activities',
    houses: ['Apps House', 'Main Road'],
    content: 'The garden club planted the new raised beds at Apps House and Main Road today. Tomatoes next!',
  },
  {
    category: 'residents_activities',
    houses: ['Tudor Way', 'Westminster Croft'],
    content:
      'Seaside trip on Wednesday for Tudor Way and Westminster Croft. The minibus leaves at 10:00; packed lunches from the kitchen.',
  },
  {
    category: 'residents_activities',
    houses: ['Chartwell & Community'],
    content: 'A local choir visited Chartwell & Community this afternoon. A great sing-along!',
  },
  {
    category: 'residents_activities',
    houses: ['Hanover Drive'],
    content: 'Quiz night winners at Hanover Drive: the Tuesday Team, again!',
  },
  {
    category: 'residents_activities',
    houses: ['Flora Innes House'],
    content: 'The spring bonnets made at the arts and crafts club are on display in the hall at Flora Innes House.',
  },
  {
    category: 'residents_activities',
    houses: ['Main Road', 'The Lodges'],
    content:
      'Bowling trip next Saturday for anyone from Main Road and The Lodges who fancies it. Names to the shift leader, please.',
  },
  {
    category: 'residents_activities',
    houses: ['Apps House'],
    content: 'Pizza-making evening at Apps House tonight. Thanks to Liam for organising.',
  },
  {
    category: 'residents_activities',
    houses: ['Westminster Croft'],
    content: 'The walking group did the canal loop this morning in the sunshine.',
  },
  {
    category: 'residents_activities',
    houses: [ORG_HOUSE],
    content: 'Open day at head office on Saturday: tea, cake and a tour of the new training room. Families welcome.',
  },
  {
    category: 'residents_activities',
    houses: ['Giles House', 'Hanover Drive'],
    content: 'Cinema trip on Thursday for Giles House and Hanover Drive. We have twelve tickets.',
  },
  {
    category: 'residents_activities',
    houses: [...NAMED_HOUSES, ORG_HOUSE],
    content:
      'The sunflower competition is on! Seeds have gone out to every house. Tallest sunflower by September wins a trophy.',
  },
  {
    category: 'residents_activities',
    houses: ['Tudor Way'],
    content: 'Karaoke night at Tudor Way was a hit. Photos to follow once everyone has said yes to sharing them.',
  },
  {
    category: 'residents_activities',
    houses: ['Flora Innes House', 'Chartwell & Community'],
    content: 'Board games afternoon on Sunday. Any spare games (with all their pieces!) gratefully received.',
  },
  { category: 'wages_hr', content: "This month's payslips are available. Pay day is Friday." },
  { category: 'wages_hr', content: 'Reminder: holiday requests for August need to be in by the end of the month.' },
  {
    category: 'wages_hr',
    content: 'Overtime claims must be signed by your shift leader before they are sent to payroll.',
  },
  {
    category: 'wages_hr',
    urgent: true,
    content:
      'The payroll deadline moves to Wednesday this month because of the bank holiday. Please send timesheets by 12:00 on Wednesday.',
  },
  {
    category: 'wages_hr',
    content: 'Pension scheme information evening on the 14th at head office. All welcome, no need to book.',
  },
  {
    category: 'wages_hr',
    content: 'The updated staff handbook section on reporting absence is now under Team Resources.',
  },
  { category: 'wages_hr', content: 'P60s will be issued with the next payslip.' },
  {
    category: 'wages_hr',
    content: 'The leave year starts again on 1 April: check your remaining days with HR before then.',
  },
  { category: 'wages_hr', content: 'Mileage rates have been updated; the new claim form is on the HR noticeboard.' },
  { category: 'shifts_lifts', content: 'Can anyone swap my Saturday late at The Lodges for a Sunday early? Thanks!' },
  {
    category: 'shifts_lifts',
    content: 'Lift share from Northside to Hanover Drive for the 07:00 start: two seats free.',
  },
  { category: 'shifts_lifts', content: 'Looking for cover for Tuesday night at Main Road, 20:00 to 08:00.' },
  {
    category: 'shifts_lifts',
    content: "I'm driving to the training day on Thursday from the town centre, room for three.",
  },
  {
    category: 'shifts_lifts',
    urgent: true,
    content: 'Short-staffed at Flora Innes House this afternoon: can anyone do 14:00 to 20:00? Please call the office.',
  },
  { category: 'shifts_lifts', content: 'Swap offered: my Wednesday early at Giles House for any late next week.' },
  {
    category: 'shifts_lifts',
    content: 'Anyone heading towards Westminster Croft after the 15:00 finish? Happy to chip in for petrol.',
  },
  {
    category: 'shifts_lifts',
    content: "Extra shifts are available over the summer; speak to Priya if you'd like more hours.",
  },
  {
    category: 'shifts_lifts',
    content: 'Bus strike on Monday: if you rely on the number 12, say so below and we will sort out lifts.',
  },
  { category: 'shifts_lifts', content: 'Covered! Thanks to everyone who offered to take my Friday.' },
  { category: 'shifts_lifts', content: "Next month's rota is up in each house office." },
];

/**
 * Posts carried over from the old noticeboard, still in the old category values
 * (docs/behaviour.md, "Posts and categories").
 */
const LEGACY_POSTS: { category: string; content: string }[] = [
  { category: 'business', content: 'From the old noticeboard: the car park resurfacing at head office is finished.' },
  { category: 'activity', content: 'From the old noticeboard: bingo every Thursday at 15:00 in the lounge.' },
  {
    category: 'wages',
    content: 'From the old noticeboard: the pay dates for the year are pinned in every house office.',
  },
];

const COMMENTS: Record<PostCategory, string[]> = {
  company_announcement: [
    'Thanks for letting us know.',
    'Great news!',
    "I'll pass this on to the night team.",
    'Brilliant, well done everyone.',
    'Noted, thank you.',
  ],
  buildings_maintenance: [
    'Thanks for sorting this so quickly.',
    "I'll let the evening shift know.",
    'Still happening on the top floor, just so you know.',
    'Great, thanks!',
  ],
  residents_activities: [
    'Looks like everyone had a lovely time!',
    'Count me in to help next time.',
    'Can we do this at our house too?',
    'What a great idea.',
    'Photos please!',
  ],
  wages_hr: [
    'Thanks for the reminder.',
    'Is this the same for bank staff?',
    'Done, timesheet sent.',
    'Where can I find the form?',
  ],
  shifts_lifts: [
    'I can do it, will message you.',
    "I'll take a seat, thanks!",
    "Sorry, I'm already on that day.",
    'Sorted, thanks all.',
  ],
};

/** Likes and loves are common, anger rare. */
const REACTION_WEIGHTS: [ReactionType, number][] = [
  ['like', 50],
  ['love', 25],
  ['laugh', 8],
  ['wow', 9],
  ['sad', 5],
  ['angry', 3],
];

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The feed covers the last four weeks. */
const FEED_DAYS = 28;

export interface DemoOptions {
  /** The demo's "now": posts, comments and reactions are all before it. */
  now?: number;
  /** ORG_NAME of the server that will show the feed: the tenth house is named after it. */
  orgName?: string;
}

/**
 * Fills a fresh database with believable sample accounts and a feed of about sixty posts with comments and
 * reactions (later issues add chats, residents). The feed is written through the same service functions as
 * the API, under a moved clock, so every row takes its sync sequence like a real write would.
 */
export async function seedDemo(db: Db, options: DemoOptions = {}): Promise<{ email: string; role: Role }[]> {
  const now = options.now ?? Date.now();
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  const staff: SessionUser[] = [];
  const accounts: { email: string; role: Role }[] = [];
  for (const [i, [firstName, lastName, role]] of STAFF.entries()) {
    const email = `${firstName}.${lastName}@demo.example`.toLowerCase();
    const id = randomUUID();
    await insertUser(db, {
      id,
      email,
      passwordHash,
      firstName,
      lastName,
      role,
      isActive: true,
      pendingApproval: false,
      // Everyone joined before the oldest post of the feed.
      createdAt: now - (FEED_DAYS + 30 + (STAFF.length - i) * 7) * DAY_MS,
      updatedAt: now,
    });
    staff.push(toCurrentUser((await findUserById(db, id))!));
    accounts.push({ email, role });
  }
  await insertUser(db, {
    id: randomUUID(),
    email: 'new.starter@demo.example',
    passwordHash,
    firstName: 'Nia',
    lastName: 'Starter',
    role: 'staff',
    isActive: false,
    pendingApproval: true,
    requestedRole: 'staff',
    createdAt: now - 3_600_000,
    updatedAt: now,
  });
  await seedFeed(db, staff, now, options.orgName ?? loadConfig({}).orgName);
  return accounts;
}

/** Writes the demo feed, oldest first, in one transaction. */
async function seedFeed(db: Db, staff: SessionUser[], now: number, orgName: string): Promise<void> {
  const random = seededRandom(2026);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  let clock = now;
  const hub = createSyncHub();
  const deps: AppDeps = {
    config: loadConfig({ ORG_NAME: orgName, LOG_LEVEL: 'silent' }),
    db,
    mailer: { send: async () => undefined },
    outbox: { wake: () => undefined },
    now: () => clock,
    log: { info: () => undefined, error: () => undefined },
    hub,
  };
  const admins = staff.filter((s) => s.role !== 'staff');
  const reactionType = (): ReactionType => {
    let roll = random() * REACTION_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [type, weight] of REACTION_WEIGHTS) {
      roll -= weight;
      if (roll < 0) return type;
    }
    return 'like';
  };
  // Spread over the last four weeks in working hours (07:00 to 20:00, the server's time zone), oldest first,
  // the newest at least an hour old; today only counts once its working day has begun.
  const count = LEGACY_POSTS.length + POSTS.length;
  const lastDay = new Date(now - 8 * HOUR_MS);
  lastDay.setHours(0, 0, 0, 0);
  const times = Array.from({ length: count }, (_, i) => {
    const day = Math.floor(((count - 1 - i) * FEED_DAYS) / count);
    const at = lastDay.getTime() - day * DAY_MS + Math.floor((7 + random() * 13) * HOUR_MS);
    return Math.min(at, now - HOUR_MS - Math.floor(random() * HOUR_MS));
  }).sort((a, b) => a - b);
  for (let i = 1; i < count; i += 1) times[i] = Math.max(times[i], times[i - 1] + 60_000);
  // The welcome post stays first; the rest are shuffled so categories mix as they would in real life.
  const [welcome, ...rest] = POSTS;
  for (let i = rest.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [rest[i], rest[j]] = [rest[j], rest[i]];
  }
  // Everything inside runs on the transaction's handle: `deps` here is a copy whose `db` is the transaction's.
  await inTransaction(deps, async (deps) => {
    for (const [i, legacy] of LEGACY_POSTS.entries()) {
      const at = times[i];
      await insertPost(deps.db, {
        id: randomUUID(),
        authorId: admins[i % admins.length].id,
        content: legacy.content,
        category: legacy.category,
        isUrgent: false,
        houseTags: '[]',
        images: '[]',
        attachments: '[]',
        createdAt: at,
        writtenAt: at,
        updatedAt: at,
        deleted: false,
      });
    }
    for (const [k, post] of [welcome, ...rest].entries()) {
      clock = times[LEGACY_POSTS.length + k];
      const official = post.category === 'company_announcement' || post.category === 'wages_hr';
      const author = k === 0 ? staff[0] : official ? pick(admins) : pick(staff);
      const { id } = await createPost(deps, author, {
        content: post.content,
        category: post.category,
        isUrgent: post.urgent ?? false,
        houseTags: (post.houses ?? []).map((house) => (house === ORG_HOUSE ? orgName : house)),
        audienceHouses: [],
        requiresConfirmation: false,
        confirmBy: null,
        images: [],
        attachments: [],
        mentions: [],
      });
      const posted = clock;
      const later = () => Math.min(posted + Math.floor((0.1 + random() * 20) * HOUR_MS), now - 60_000);
      const others = staff.filter((s) => s.id !== author.id);
      const commenters = Math.floor(random() * 5); // 0 to 4
      const lines = [...COMMENTS[post.category]];
      for (let c = 0; c < commenters && lines.length > 0; c += 1) {
        clock = later();
        const [line] = lines.splice(Math.floor(random() * lines.length), 1);
        await addComment(deps, pick(others), id, { content: line, mentions: [] });
      }
      const reactors = [...others].sort(() => random() - 0.5).slice(0, Math.floor(random() * 9));
      for (const person of reactors) {
        clock = later();
        await setReaction(deps, person, id, post.urgent ? pick<ReactionType>(['like', 'wow']) : reactionType());
      }
    }
  });
  hub.close();
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'staff-portal-demo-'));
  // The printed admin accounts sign in with their password unless ADMIN_TWO_FACTOR says otherwise (decision 148).
  const config = loadConfig({
    ADMIN_TWO_FACTOR: 'optional',
    ...process.env,
    DATA_DIR: dataDir,
    // The demo's data is its own and goes when it stops: never into a deployment's PostgreSQL.
    DATABASE_URL: undefined,
    ADMIN_EMAIL: undefined,
    ADMIN_PASSWORD: undefined,
  });
  await ensureClientBuilt((m) => console.log(m));
  const db = openDb(databaseFile(config));
  const accounts = await seedDemo(db, { orgName: config.orgName });
  await closeDb(db);
  const server = await startServer(config);
  console.log(`\nStaff Portal demo is running at ${server.url}`);
  console.log(`Sign in with any of these accounts, password ${DEMO_PASSWORD}:`);
  for (const a of accounts.slice(0, 4)) console.log(`  ${a.email.padEnd(32)} ${a.role}`);
  console.log(`  ...and ${accounts.length - 4} more staff; one registration awaits approval on the admin page.`);
  console.log(`Data is in ${dataDir} and is deleted when you stop the demo (Ctrl+C).\n`);
  const stop = async () => {
    await server.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError) console.error(error.message);
    else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error('The port is already in use. Stop the other program or set PORT to a free port.');
    } else console.error(error);
    process.exit(1);
  });
}
