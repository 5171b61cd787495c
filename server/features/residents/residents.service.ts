import { randomBytes, randomUUID } from 'node:crypto';
import { listHouses } from '../../../schema/constants';
import { DELETED_AUTHOR } from '../../../schema/posts';
import { canArchiveResident, isLimitedToOwnHouses } from '../../../schema/permissions';
import type { AccountType } from '../../../schema/role-rules';
import {
  RESIDENT_HISTORY_MAX,
  RESIDENT_MESSAGES,
  RESIDENT_PHOTO_MAX_BYTES,
  RESIDENT_PHOTO_NAME,
  RESIDENT_PHOTO_PREFIX,
  mergeResidentEdit,
  residentChanges,
  type CreateResidentBody,
  type ResidentEdit,
  type ResidentEditAnswer,
  type ResidentMerge,
  type FieldChange,
  type ResidentFields,
  type ResidentUser,
  type ResidentVersionView,
  type ResidentView,
  type UpdateResidentBody,
} from '../../../schema/residents';
import type { FieldMerge, ResidentDoc, ResidentViewDoc } from '../../../schema/sync';
import { fileExtension, IMAGE_EXTENSIONS } from '../../../schema/uploads';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { AppError, badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { LIMITS } from '../../../schema/constants';
import { checkUploadedFile, type PictureSizes } from '../../lib/files';
import { fileStorage, storageKey, type StoredFile } from '../../lib/storage';
import { boundWrittenAt } from '../../lib/written-at';
import { KEPT_MAX_AGE_MS } from '../../../schema/kept-rules';
import { recordAudit } from '../audit/audit.service';
import { housesByUser } from '../houses/houses.service';
import { accountTypeOf } from '../users/users.service';
import { parseList } from '../posts/posts.service';
import {
  findResident,
  findResidentView,
  findResidentWithCreator,
  findVersionAfter,
  hasPhotoKey,
  hasResidentViewBetween,
  insertResident,
  insertResidentView,
  isPhotoOfActiveResident,
  listActiveResidents,
  listResidentsSince,
  listResidentVersions,
  listResidentViewsSince,
  updateResident,
  type ResidentRow,
  type ResidentViewRow,
  type UserNameRow,
  touchResidents,
} from './residents.queries';
import { inTransaction, type Db } from '../../db/client';

/** An opening of a profile is audited once in this time per person and resident (decision 130). */
const RESIDENT_VIEW_AUDIT_GAP_MS = 5 * 60 * 1000;

/** Recorded views are pulled back (as tombstones) for a day: long enough for the device that sent them. */
const VIEW_PULL_WINDOW_MS = 24 * 60 * 60 * 1000;

const PHOTO_TYPES: Record<string, string> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

const iso = (ms: number) => new Date(ms).toISOString();

function toUser(row: UserNameRow | null): ResidentUser {
  return row?.id ? { id: row.id, firstName: row.firstName, lastName: row.lastName } : { id: null, ...DELETED_AUTHOR };
}

/** The editable state of a stored profile. */
export function toResidentFields(row: ResidentRow): ResidentFields {
  return {
    name: row.name,
    likeToBeCall: row.likeToBeCall,
    dateOfBirth: row.dateOfBirth,
    photoUrl: row.photoUrl,
    interestsHappyPlace: row.interestsHappyPlace,
    supportNeedsCarePreferences: row.supportNeedsCarePreferences,
    whatMakesSadAnxious: row.whatMakesSadAnxious,
    medication: row.medication,
    strengthsAbilities: row.strengthsAbilities,
    communicationPreferences: row.communicationPreferences,
    familySocialConnections: row.familySocialConnections,
    personalValuesBeliefs: row.personalValuesBeliefs,
    houseTags: parseList<string>(row.houseTags),
  };
}

function toResidentView(row: ResidentRow, creator: UserNameRow | null): ResidentView {
  return {
    id: row.id,
    ...toResidentFields(row),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    createdByUser: toUser(creator),
  };
}

/** The stored columns of an editable state. */
function toColumns(fields: ResidentFields) {
  return { ...fields, houseTags: JSON.stringify(fields.houseTags) };
}

/** The active resident with this id, or 404 (an archived one is gone for everyone). */
async function requireActiveResident(deps: AppDeps, id: string): Promise<ResidentRow> {
  const row = await findResident(deps.db, id);
  return row && !row.archived ? row : notFound(RESIDENT_MESSAGES.notFound);
}

/** The houses whose residents a user sees, or null for every resident: bank and agency staff see their own (decision 147). */
async function residentHousesOf(deps: AppDeps, userId: string): Promise<string[] | null> {
  if (!isLimitedToOwnHouses({ type: await accountTypeOf(deps, userId) })) return null;
  return (await housesByUser(deps, [userId])).get(userId) ?? [];
}

function isResidentOf(row: ResidentRow, houses: readonly string[] | null): boolean {
  return houses === null || parseList<string>(row.houseTags).some((house) => houses.includes(house));
}

/** An active resident the user may see; any other is "not found", as if it were not there (decision 147). */
async function requireSeenResident(deps: AppDeps, actor: SessionUser, id: string): Promise<ResidentRow> {
  const row = await requireActiveResident(deps, id);
  return isResidentOf(row, await residentHousesOf(deps, actor.id)) ? row : notFound(RESIDENT_MESSAGES.notFound);
}

function checkHouses(deps: AppDeps, houseTags: string[]): void {
  const houses = listHouses(deps.config.orgName);
  const unknown = houseTags.find((tag) => !houses.includes(tag));
  if (unknown !== undefined) badRequest(`Unknown house: ${unknown}`);
}

/** Audit entries name the fields that changed, never their values (the log must not copy health data). */
async function audit(
  deps: AppDeps,
  actor: SessionUser,
  action: string,
  id: string,
  meta: RequestMeta,
  at: number,
  details?: Record<string, unknown>,
) {
  await recordAudit(deps.db, { actor, action, ip: meta.ip, target: { type: 'resident', id }, details, at });
}

const fieldNames = (changes: FieldChange[]) => changes.map((change) => change.field);

// Photos -----------------------------------------------------------------------------------------------------

/** Resident photos live in the storage's `resident-photos` area under random names, apart from the feed's uploads. */
const photoStorageKey = (name: string) => storageKey('resident-photos', name);

/** A resident's photo is a portrait on cards and in the profile: the card size is all it is ever shown at. */
const RESIDENT_PHOTO_SIZES: PictureSizes = { longestEdge: LIMITS.pictureCardEdge };

const notAnImage = (): never => {
  throw new AppError(415, 'unsupported_media_type', RESIDENT_MESSAGES.photoNotImage);
};

/**
 * Checks a photo (an image by name and content, at most 10 MB), re-encodes it without metadata with the
 * uploads' helper (decision 19) and stores it under a random name; answers its URL.
 */
async function storeResidentPhoto(deps: AppDeps, file: File): Promise<string> {
  if (file.size > RESIDENT_PHOTO_MAX_BYTES) {
    throw new AppError(413, 'payload_too_large', RESIDENT_MESSAGES.photoTooLarge);
  }
  if (!(IMAGE_EXTENSIONS as readonly string[]).includes(fileExtension(file.name))) notAnImage();
  const checked = await checkUploadedFile(file, RESIDENT_PHOTO_SIZES).catch((error: unknown) =>
    error instanceof AppError && error.status === 415 ? notAnImage() : Promise.reject(error),
  );
  if (checked.kind !== 'image') notAnImage();
  const ext = checked.ext === 'jpeg' ? 'jpg' : checked.ext;
  const name = `${randomBytes(16).toString('hex')}.${ext}`;
  await fileStorage(deps.config).put(photoStorageKey(name), checked.bytes);
  return RESIDENT_PHOTO_PREFIX + name;
}

async function discardPhoto(deps: AppDeps, url: string | null): Promise<void> {
  const name = url?.slice(RESIDENT_PHOTO_PREFIX.length);
  if (name && RESIDENT_PHOTO_NAME.test(name)) await fileStorage(deps.config).delete(photoStorageKey(name));
}

/**
 * The file and type of a stored photo, for GET /api/residents/photos/{name}; 404 for anything else, and for the
 * photos of archived residents (decision 126).
 */
export async function openResidentPhoto(deps: AppDeps, name: string): Promise<{ file: StoredFile; type: string }> {
  const match = RESIDENT_PHOTO_NAME.exec(name) ?? notFound('Photo not found');
  if (!(await isPhotoOfActiveResident(deps.db, RESIDENT_PHOTO_PREFIX + name))) notFound('Photo not found');
  const file = (await fileStorage(deps.config).get(photoStorageKey(name))) ?? notFound('Photo not found');
  return { file, type: PHOTO_TYPES[match[1]] };
}

// Profiles ---------------------------------------------------------------------------------------------------

/** GET /api/residents: active residents by name (docs/api-residents.md); bank and agency staff their houses' only. */
export async function listResidents(deps: AppDeps, actor: SessionUser): Promise<ResidentView[]> {
  const houses = await residentHousesOf(deps, actor.id);
  return (await listActiveResidents(deps.db))
    .filter(({ resident }) => isResidentOf(resident, houses))
    .map(({ resident, creator }) => toResidentView(resident, creator));
}

/**
 * GET /api/residents/{id}: one full profile; the opening is written to the audit log, at most once in five
 * minutes per person and resident (decision 130). Browsers reading for another site are refused by the route.
 */
export async function viewResident(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  meta: RequestMeta,
): Promise<ResidentView> {
  const found = await findResidentWithCreator(deps.db, id);
  if (!found || found.resident.archived) return notFound(RESIDENT_MESSAGES.notFound);
  if (!isResidentOf(found.resident, await residentHousesOf(deps, actor.id)))
    return notFound(RESIDENT_MESSAGES.notFound);
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    if (!(await isViewAudited(deps, actor, id, at)))
      await audit(deps, actor, 'resident.view', id, meta, at, { viewedAt: iso(at), via: 'api' });
  });
  return toResidentView(found.resident, found.creator);
}

/**
 * Whether an opening at `viewedAt` is already in the audit log: one by the same person of the same resident was
 * written less than five minutes before or after it. Views are compared by when they were seen (the device's
 * time, bounded, for a pushed one), not by when they arrived, so a view kept offline for hours is its own entry.
 */
async function isViewAudited(
  deps: AppDeps,
  actor: SessionUser,
  residentId: string,
  viewedAt: number,
): Promise<boolean> {
  return await hasResidentViewBetween(
    deps.db,
    actor.id,
    residentId,
    viewedAt - RESIDENT_VIEW_AUDIT_GAP_MS,
    viewedAt + RESIDENT_VIEW_AUDIT_GAP_MS,
  );
}

async function loadResidentView(deps: AppDeps, id: string): Promise<ResidentView> {
  const found = (await findResidentWithCreator(deps.db, id)) ?? notFound(RESIDENT_MESSAGES.notFound);
  return toResidentView(found.resident, found.creator);
}

/**
 * POST /api/residents: a new profile by any active staff member (decision 49), version 1 of its history and
 * the audit entry `resident.create`. The photo is stored first and removed again if the profile is refused.
 */
export async function createResident(
  deps: AppDeps,
  actor: SessionUser,
  body: CreateResidentBody,
  photo: File | null,
  meta: RequestMeta,
): Promise<ResidentView> {
  checkHouses(deps, body.houseTags);
  const photoUrl = photo ? await storeResidentPhoto(deps, photo) : null;
  const fields: ResidentFields = { ...body, photoUrl };
  const id = randomUUID();
  const at = deps.now();
  const changes = residentChanges(null, fields);
  try {
    await inTransaction(deps, async (deps) => {
      await insertResident(
        deps.db,
        { id, ...toColumns(fields), createdBy: actor.id, createdAt: at, updatedAt: at, archived: false },
        { action: 'create', changedBy: actor.id, changedAt: at, changes: JSON.stringify(changes), previous: null },
      );
      await audit(deps, actor, 'resident.create', id, meta, at, { fields: fieldNames(changes) });
    });
  } catch (error) {
    await discardPhoto(deps, photoUrl);
    throw error;
  }
  deps.hub.notify('residents');
  return loadResidentView(deps, id);
}

/** What an edit did: how it merged, and whether it stored a new version. */
interface SavedEdit {
  merge: ResidentMerge;
  changed: boolean;
}

/**
 * Writes an edit made from `base` (null: the stored version) onto the stored profile, field by field (decision 120):
 * only the fields it changed from its base are written; the rest of what others changed since stays. The previous
 * profile is kept as a version (who, when, which fields from what to what) and `resident.update` is audited; an
 * edit that changes nothing records nothing. Runs inside the caller's transaction.
 */
async function saveResidentEdit(
  deps: AppDeps,
  actor: SessionUser,
  current: ResidentRow,
  base: ResidentFields | null,
  next: Partial<ResidentFields>,
  meta: RequestMeta,
  photoKey: string | null = null,
): Promise<SavedEdit> {
  const before = toResidentFields(current);
  const merge = mergeResidentEdit(base ?? before, next, before);
  checkHouses(deps, merge.merged.houseTags);
  const changes = residentChanges(before, merge.merged);
  if (changes.length === 0) return { merge, changed: false };
  // Strictly later than the version before, so a version's time says which state an edit started from.
  const at = Math.max(deps.now(), current.updatedAt + 1);
  await updateResident(
    deps.db,
    current.id,
    { ...toColumns(merge.merged), updatedAt: at },
    {
      action: 'update',
      changedBy: actor.id,
      changedAt: at,
      changes: JSON.stringify(changes),
      previous: JSON.stringify(before),
      photoKey,
    },
  );
  const mergedWith = merge.theirs.length > 0 ? { mergedWith: merge.theirs } : {};
  await audit(deps, actor, 'resident.update', current.id, meta, at, { fields: fieldNames(changes), ...mergedWith });
  return { merge, changed: true };
}

/** The profile as it was at a time, from its history; 400 before the profile existed. */
async function residentStateAt(deps: AppDeps, current: ResidentRow, at: number): Promise<ResidentFields> {
  const later = await findVersionAfter(deps.db, current.id, at);
  if (!later) return toResidentFields(current);
  if (!later.previous) return badRequest('baseUpdatedAt is earlier than this profile');
  return JSON.parse(later.previous) as ResidentFields;
}

/** The merge to tell the writer of, when someone else had changed the profile since the edit's base. */
function mergeToTell({ merge }: SavedEdit): FieldMerge | undefined {
  if (merge.theirs.length === 0) return undefined;
  return { mine: merge.mine, theirs: merge.theirs, both: merge.both };
}

/**
 * PUT /api/residents/{id}: fields sent replace the stored ones, fields left out stay. With `baseUpdatedAt` (the
 * version the form was filled from) only the fields changed from that version are written, merged onto what is
 * stored now (decision 120). The old photo file stays: the history refers to it.
 */
export async function editResident(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: UpdateResidentBody,
  photo: File | null,
  meta: RequestMeta,
): Promise<ResidentEditAnswer> {
  await requireSeenResident(deps, actor, id);
  const { removePhoto, baseUpdatedAt, photoKey, ...sent } = body;
  const key = photo ? (photoKey ?? null) : null;
  // A photo sent again after its answer was lost: it is stored already (decision 123).
  // Given the database to ask: inside the transaction below, its own (the app's would wait for it for ever).
  const sentBefore = async (db: Db) => key !== null && (await hasPhotoKey(db, id, key));
  if (await sentBefore(deps.db)) return loadResidentView(deps, id);
  const next: Partial<ResidentFields> = Object.fromEntries(
    Object.entries(sent).filter(([, value]) => value !== undefined),
  );
  if (photo) next.photoUrl = await storeResidentPhoto(deps, photo);
  else if (removePhoto) next.photoUrl = null;
  let saved: SavedEdit | null;
  try {
    saved = await inTransaction(deps, async (deps) => {
      // Archived by someone else while the photo was being stored: refuse rather than edit an archived profile.
      const current = await requireActiveResident(deps, id);
      // The same photo sent twice at once: the first to get here stores it.
      if (await sentBefore(deps.db)) return null;
      const base = await (baseUpdatedAt === undefined ? null : residentStateAt(deps, current, baseUpdatedAt));
      return saveResidentEdit(deps, actor, current, base, next, meta, key);
    });
  } catch (error) {
    if (photo) await discardPhoto(deps, next.photoUrl ?? null);
    throw error;
  }
  if (!saved) {
    await discardPhoto(deps, next.photoUrl ?? null);
    return loadResidentView(deps, id);
  }
  if (saved.changed) deps.hub.notify('residents');
  const merge = mergeToTell(saved);
  return { ...(await loadResidentView(deps, id)), ...(merge ? { merge } : {}) };
}

/**
 * An edit pushed from a device (offline ones when the connection returns), merged from the state it assumed onto the
 * stored version like a REST edit with its base (decision 120). Answers the merge when someone else had changed the
 * profile since, so the device can tell its user. Runs inside the push's transaction.
 */
export async function editResidentFromDevice(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  edit: { base: ResidentFields; next: ResidentEdit },
  meta: RequestMeta,
): Promise<FieldMerge | undefined> {
  const saved = await saveResidentEdit(
    deps,
    actor,
    await requireSeenResident(deps, actor, id),
    edit.base,
    edit.next,
    meta,
  );
  if (saved.changed) deps.hub.notify('residents');
  return mergeToTell(saved);
}

/**
 * POST /api/residents/{id}/archive: administrators only. The profile leaves the active list and
 * every device (a tombstone); the row, its history and photos stay on the server for the record.
 */
export async function archiveResident(deps: AppDeps, actor: SessionUser, id: string, meta: RequestMeta): Promise<void> {
  if (!canArchiveResident(actor)) forbidden(RESIDENT_MESSAGES.archiveForbidden);
  const current = (await findResident(deps.db, id)) ?? notFound(RESIDENT_MESSAGES.notFound);
  if (current.archived) conflict(RESIDENT_MESSAGES.alreadyArchived);
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    await updateResident(
      deps.db,
      id,
      { archived: true, archivedAt: at, archivedBy: actor.id, updatedAt: at },
      {
        action: 'archive',
        changedBy: actor.id,
        changedAt: at,
        changes: '[]',
        previous: JSON.stringify(toResidentFields(current)),
      },
    );
    await audit(deps, actor, 'resident.archive', id, meta, at);
  });
  deps.hub.notify('residents');
}

/** GET /api/residents/{id}/history: the versions of an active resident, newest first. */
export async function listResidentHistory(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
): Promise<ResidentVersionView[]> {
  await requireSeenResident(deps, actor, id);
  return (await listResidentVersions(deps.db, id, RESIDENT_HISTORY_MAX)).map(({ version, user }) => ({
    version: version.version,
    action: version.action,
    changedAt: iso(version.changedAt),
    changedBy: toUser(user),
    changes: parseList<FieldChange>(version.changes),
  }));
}

// Sync -------------------------------------------------------------------------------------------------------

/** A resident as replication sends it; an archived one, or one the puller may not see, is a tombstone with no content. */
export function toResidentDoc(row: ResidentRow, seen = true): ResidentDoc {
  const live = !row.archived && seen;
  const fields = toResidentFields(row);
  const blank: ResidentFields = {
    name: '',
    likeToBeCall: '',
    dateOfBirth: null,
    photoUrl: null,
    interestsHappyPlace: '',
    supportNeedsCarePreferences: '',
    whatMakesSadAnxious: '',
    medication: '',
    strengthsAbilities: '',
    communicationPreferences: '',
    familySocialConnections: '',
    personalValuesBeliefs: '',
    houseTags: [],
  };
  return {
    id: row.id,
    ...(live ? fields : blank),
    createdBy: live ? row.createdBy : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    _deleted: !live,
  };
}

/** The stored resident as pull sends it (an archived one a tombstone), or null for an unknown id. */
export async function findResidentDoc(deps: AppDeps, id: string, actor: SessionUser): Promise<ResidentDoc | null> {
  const row = await findResident(deps.db, id);
  return row ? toResidentDoc(row, isResidentOf(row, await residentHousesOf(deps, actor.id))) : null;
}

/** Residents changed after a checkpoint: every active one, but bank and agency staff only their houses' (decision 147). */
export async function listResidentDocsSince(deps: AppDeps, actor: SessionUser, seq: number, id: string, limit: number) {
  const houses = await residentHousesOf(deps, actor.id);
  return (await listResidentsSince(deps.db, seq, id, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toResidentDoc(row, isResidentOf(row, houses)),
  }));
}

/**
 * Called when an account's type or houses change: the residents it began or stopped seeing move up the change feed,
 * so its next pull brings them, or their tombstones (decision 147). Residents are few; others pull them again unchanged.
 */
export async function residentAccessChanged(
  deps: AppDeps,
  before: { type: AccountType; houses: readonly string[] },
  after: { type: AccountType; houses: readonly string[] },
): Promise<void> {
  const was = isLimitedToOwnHouses(before) ? before.houses : null;
  const is = isLimitedToOwnHouses(after) ? after.houses : null;
  if (was === null && is === null) return;
  const changed = (await listActiveResidents(deps.db))
    .map(({ resident }) => resident)
    .filter((row) => isResidentOf(row, was) !== isResidentOf(row, is));
  if (changed.length === 0) return;
  await touchResidents(
    deps.db,
    changed.map((row) => row.id),
  );
  deps.hub.notify('residents');
}

/** A recorded view goes back to its device only as a tombstone: recorded, so it can be forgotten there. */
function toResidentViewDoc(row: ResidentViewRow): ResidentViewDoc {
  return { id: row.id, residentId: row.residentId, viewedAt: row.viewedAt, _deleted: true };
}

export async function listResidentViewDocsSince(
  deps: AppDeps,
  actor: SessionUser,
  seq: number,
  id: string,
  limit: number,
) {
  const since = deps.now() - VIEW_PULL_WINDOW_MS;
  return (await listResidentViewsSince(deps.db, actor.id, seq, id, since, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toResidentViewDoc(row),
  }));
}

/** The recorded view with this id, if it is the actor's own. */
export async function findResidentViewDoc(
  deps: AppDeps,
  id: string,
  actor: SessionUser,
): Promise<ResidentViewDoc | null> {
  const row = await findResidentView(deps.db, id);
  return row && row.userId === actor.id ? toResidentViewDoc(row) : null;
}

/**
 * A full profile opened on a device (pushed through sync, perhaps long after, from offline): stored once by
 * its id and written to the audit log as `resident.view` with the server's time, the device's time in the
 * details, kept between the kept-work window and the arrival (decision 119). An opening within five minutes of one
 * already audited is stored, so the device forgets it as usual, but not audited again (decision 130). A view of a
 * resident archived since still counts; an unknown resident is refused.
 */
export async function recordResidentView(
  deps: AppDeps,
  actor: SessionUser,
  view: { id: string; residentId: string; viewedAt: number },
  meta: RequestMeta,
): Promise<void> {
  if (!(await findResident(deps.db, view.residentId))) notFound(RESIDENT_MESSAGES.notFound);
  if (await findResidentView(deps.db, view.id)) conflict('This view has already been recorded');
  const at = deps.now();
  const viewedAt = boundWrittenAt(view.viewedAt, at - KEPT_MAX_AGE_MS, at);
  await inTransaction(deps, async (deps) => {
    await insertResidentView(deps.db, { ...view, userId: actor.id, recordedAt: at });
    if (await isViewAudited(deps, actor, view.residentId, viewedAt)) return;
    await audit(deps, actor, 'resident.view', view.residentId, meta, at, { viewedAt: iso(viewedAt), via: 'app' });
  });
  deps.hub.notify('residentViews', [actor.id]);
}

/** Whether every id names an active resident of this house: the residents a handover note mentions (decision 138). */
export async function areActiveResidentsOf(deps: AppDeps, house: string, ids: readonly string[]): Promise<boolean> {
  for (const id of ids) {
    const row = await findResident(deps.db, id);
    if (row === undefined || row.archived || !parseList<string>(row.houseTags).includes(house)) return false;
  }
  return true;
}
