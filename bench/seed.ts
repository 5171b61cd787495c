/** Builds large, realistic databases for the benches quickly (multi-row inserts, correct sync sequence). */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import { NAMED_HOUSES } from '../schema/constants';
import { seededRandom } from '../schema/seeded-random';
import { POST_CATEGORIES, REACTION_TYPES } from '../schema/posts';
import { openDb, sqliteOf } from '../server/db/client';
import { hashPassword } from '../server/lib/crypto';

export interface SeedSizes {
  users: number;
  posts: number;
  reactions: number;
  comments: number;
}

/**
 * Inserts rows with multi-row INSERT statements prepared once (100 rows each), the fast path SQLite offers;
 * the caller wraps it in a transaction.
 */
function bulkInsert(sqlite: Database.Database, table: string, columns: string[], rows: unknown[][]): void {
  const CHUNK = 100;
  const statement = (n: number) =>
    sqlite.prepare(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ` +
        Array.from({ length: n }, () => `(${columns.map(() => '?').join(', ')})`).join(', '),
    );
  const full = statement(CHUNK);
  let i = 0;
  for (; i + CHUNK <= rows.length; i += CHUNK) full.run(rows.slice(i, i + CHUNK).flat());
  if (i < rows.length) statement(rows.length - i).run(rows.slice(i).flat());
}

const SENTENCES = [
  'Reminder: the rota for next month is up in each house office.',
  'The boiler has been serviced and hot water is back to normal.',
  'Thank you to everyone who helped at the summer fair.',
  'Can anyone swap a Saturday late for a Sunday early?',
  'Payslips are available; pay day is Friday.',
  'Garden club planted the raised beds this afternoon.',
  'The lift is being inspected on Tuesday morning.',
  'Film night on Friday, voting for the film is open.',
  'Please report broken equipment on the maintenance form.',
  'Lift share available for the 07:00 start, two seats free.',
];

/** Builds the database the figure asks for, in one transaction, with a correct sync sequence on every row. */
export async function buildDatabase(
  file: string,
  SIZES: SeedSizes,
  PASSWORD: string,
): Promise<{ email: string; seconds: number }> {
  const started = performance.now();
  const db = openDb(file); // creates the schema through the real migrations
  const sqlite = sqliteOf(db);
  const random = seededRandom(42);
  const int = (n: number) => Math.floor(random() * n);
  const passwordHash = await hashPassword(PASSWORD);
  const now = Date.now();
  let seq =
    (sqlite.prepare('SELECT seq FROM sync_counter WHERE id = 1').get() as { seq: number } | undefined)?.seq ?? 0;

  const userIds = Array.from({ length: SIZES.users }, () => randomUUID());
  const users = userIds.map((id, i) => [
    id,
    `staff${i}@bench.example`,
    passwordHash,
    `First${i}`,
    `Last${i}`,
    i === 0 ? 'system_admin' : i < 20 ? 'admin' : 'staff',
    1,
    0,
    now - 800 * 86_400_000,
    now - 800 * 86_400_000,
    ++seq,
  ]);

  // Posts oldest first, one every ~10 minutes (about two years), so the sequence follows time as in real use.
  const postIds: string[] = [];
  const postTimes: number[] = [];
  const houses = [...NAMED_HOUSES];
  const posts = Array.from({ length: SIZES.posts }, (_, i) => {
    const id = randomUUID();
    const at = now - (SIZES.posts - i) * 600_000 + int(300_000);
    postIds.push(id);
    postTimes.push(at);
    const legacy = i % 500 === 0;
    const category = legacy ? 'business' : POST_CATEGORIES[int(POST_CATEGORIES.length)];
    const tags = category === 'residents_activities' ? [houses[int(houses.length)]] : [];
    const content = Array.from({ length: 1 + int(4) }, () => SENTENCES[int(SENTENCES.length)]).join('\n');
    return [
      id,
      userIds[int(SIZES.users)],
      content,
      category,
      int(50) === 0 ? 1 : 0,
      JSON.stringify(tags),
      '[]',
      '[]',
      at,
      at,
      0,
      ++seq,
    ];
  });

  // Three reactions per post on average (one to five), each by a different person (one per post and user).
  const reactions: unknown[][] = [];
  // Between one and (2 x average - 1) reactions per post, so the total comes near SIZES.reactions.
  const spread = Math.max(1, 2 * Math.round(SIZES.reactions / SIZES.posts) - 1);
  for (let p = 0; p < SIZES.posts; p += 1) {
    const start = int(SIZES.users);
    for (let k = 0; k < 1 + ((p * 7) % spread); k += 1) {
      const userId = userIds[(start + k * 37) % SIZES.users];
      const at = postTimes[p] + 60_000 * (k + 1);
      const type = REACTION_TYPES[int(3) === 0 ? int(REACTION_TYPES.length) : 0];
      reactions.push([`${postIds[p]}:${userId}`, postIds[p], userId, type, at, at, 0, ++seq]);
    }
  }
  const comments = Array.from({ length: SIZES.comments }, () => {
    const p = int(SIZES.posts);
    const at = postTimes[p] + 120_000 + int(3_600_000);
    return [randomUUID(), postIds[p], userIds[int(SIZES.users)], 'Thanks, noted!', at, at, 0, ++seq];
  });

  // A throwaway file loaded once: no rollback journal or fsync while loading, a large cache for the random-order
  // index inserts (UUID keys), and foreign keys checked once at the end instead of per row.
  sqlite.pragma('journal_mode = OFF');
  sqlite.pragma('synchronous = OFF');
  sqlite.pragma('cache_size = -262144');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.transaction(() => {
    bulkInsert(
      sqlite,
      'users',
      [
        'id',
        'email',
        'password_hash',
        'first_name',
        'last_name',
        'role',
        'is_active',
        'pending_approval',
        'created_at',
        'updated_at',
        'server_seq',
      ],
      users,
    );
    bulkInsert(
      sqlite,
      'posts',
      [
        'id',
        'author_id',
        'content',
        'category',
        'is_urgent',
        'house_tags',
        'images',
        'attachments',
        'created_at',
        'updated_at',
        'deleted',
        'server_seq',
      ],
      posts,
    );
    const feedColumns = ['created_at', 'updated_at', 'deleted', 'server_seq'];
    bulkInsert(sqlite, 'reactions', ['id', 'post_id', 'user_id', 'type', ...feedColumns], reactions);
    bulkInsert(sqlite, 'comments', ['id', 'post_id', 'author_id', 'content', ...feedColumns], comments);
    sqlite
      .prepare('INSERT INTO sync_counter (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq')
      .run(seq);
  })();
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('journal_mode = WAL'); // as the server runs it
  const broken = sqlite.pragma('foreign_key_check') as unknown[];
  if (broken.length > 0) throw new Error(`generated data breaks ${broken.length} foreign keys`);
  const counts = sqlite
    .prepare(
      `SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM posts) AS posts,
              (SELECT count(*) FROM reactions) AS reactions, (SELECT count(*) FROM comments) AS comments`,
    )
    .get();
  console.log('Database:', JSON.stringify(counts), `sync sequence at ${seq}`);
  sqlite.close();
  return { email: `staff${Math.floor(SIZES.users / 2)}@bench.example`, seconds: (performance.now() - started) / 1000 };
}
