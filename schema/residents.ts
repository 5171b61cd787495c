import { z } from 'zod';
import { HOUSE_NAME_MAX } from './posts';
import { RESIDENT_FIELDS, type ResidentField, type ResidentTextField } from './resident-rules';
import { sameJson } from './same-json';

/**
 * Residents' One Page Profiles (docs/api-residents.md). Their fields hold health data (UK GDPR special category): see
 * decision 49.
 */

export { RESIDENT_FIELDS, RESIDENT_TEXT_FIELDS, type ResidentField, type ResidentTextField } from './resident-rules';

/** Labels of the form, the profile and the history ("Full Name" is the one required field, docs/behaviour.md, "Residents"). */
export const RESIDENT_FIELD_LABELS: Record<ResidentField, string> = {
  name: 'Full Name',
  likeToBeCall: 'Like to be called',
  dateOfBirth: 'Date of Birth',
  photoUrl: 'Photo',
  interestsHappyPlace: 'Interests & Happy Place',
  supportNeedsCarePreferences: 'Support Needs & Care Preferences',
  whatMakesSadAnxious: 'What Makes Me Sad or Anxious',
  medication: 'Medication',
  strengthsAbilities: 'Strengths & Abilities',
  communicationPreferences: 'Communication Preferences',
  familySocialConnections: 'Family & Social Connections',
  personalValuesBeliefs: 'Personal Values & Beliefs',
  houseTags: 'Houses',
};

/** Bounds of a resident's profile (decision 51). */
export const RESIDENT_NAME_MAX = 200;
export const RESIDENT_TEXT_MAX = 5000;
export const RESIDENT_PHOTO_MAX_BYTES = 10 * 1024 * 1024;
export const RESIDENT_HISTORY_MAX = 200;

export const RESIDENT_MESSAGES = {
  nameRequired: 'Full Name is required',
  nameTooLong: `Full Name must be at most ${RESIDENT_NAME_MAX} characters`,
  likeToBeCallTooLong: `Like to be called must be at most ${RESIDENT_NAME_MAX} characters`,
  textTooLong: (label: string) => `${label} must be at most ${RESIDENT_TEXT_MAX} characters`,
  invalidDate: 'Date of birth must be a date in the form YYYY-MM-DD',
  futureDate: 'Date of birth cannot be in the future',
  houseTagsJson: 'houseTags must be a JSON list of house names',
  photoNotImage: 'The photo must be an image file (JPG, PNG, GIF or WebP).',
  photoTooLarge: `The photo is too large. Photos can be at most ${RESIDENT_PHOTO_MAX_BYTES / 1024 / 1024} MB.`,
  notFound: 'Resident not found',
  alreadyArchived: 'This resident is already archived',
  archiveForbidden: 'Only administrators can archive residents',
  addOnline: 'A new resident can be added only while online, from the Residents page',
} as const;

const text = (field: ResidentTextField) =>
  z
    .string({ message: `${RESIDENT_FIELD_LABELS[field]} must be text` })
    .trim()
    .max(RESIDENT_TEXT_MAX, RESIDENT_MESSAGES.textTooLong(RESIDENT_FIELD_LABELS[field]));

/** A calendar date YYYY-MM-DD that exists and is not after today; empty means none. */
export function isValidBirthDate(value: string, today = new Date()): 'ok' | 'invalid' | 'future' {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return 'invalid';
  const date = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value || value < '1850-01-01') {
    return 'invalid';
  }
  return value > today.toISOString().slice(0, 10) ? 'future' : 'ok';
}

const dateOfBirth = z
  .string({ message: RESIDENT_MESSAGES.invalidDate })
  .trim()
  .transform((value, ctx) => {
    if (value === '') return null;
    const check = isValidBirthDate(value);
    if (check !== 'ok') {
      ctx.addIssue({
        code: 'custom',
        message: check === 'future' ? RESIDENT_MESSAGES.futureDate : RESIDENT_MESSAGES.invalidDate,
      });
      return z.NEVER;
    }
    return value;
  })
  .nullable();

/** House names; the server checks them against the ten houses (the tenth is the organisation's name). */
const houseTags = z
  .array(z.string().trim().min(1).max(HOUSE_NAME_MAX), { message: RESIDENT_MESSAGES.houseTagsJson })
  .max(10, 'At most 10 houses can be chosen')
  .transform((tags) => [...new Set(tags)]);

const residentName = z
  .string({ message: RESIDENT_MESSAGES.nameRequired })
  .trim()
  .min(1, RESIDENT_MESSAGES.nameRequired)
  .max(RESIDENT_NAME_MAX, RESIDENT_MESSAGES.nameTooLong);
const likeToBeCall = z.string().trim().max(RESIDENT_NAME_MAX, RESIDENT_MESSAGES.likeToBeCallTooLong);

/** The text part of the resident form (Full Name required, all others optional; docs/behaviour.md, "Residents"). */
export const CreateResidentBodySchema = z.object({
  name: residentName,
  likeToBeCall: likeToBeCall.default(''),
  dateOfBirth: dateOfBirth.default(null),
  interestsHappyPlace: text('interestsHappyPlace').default(''),
  supportNeedsCarePreferences: text('supportNeedsCarePreferences').default(''),
  whatMakesSadAnxious: text('whatMakesSadAnxious').default(''),
  medication: text('medication').default(''),
  strengthsAbilities: text('strengthsAbilities').default(''),
  communicationPreferences: text('communicationPreferences').default(''),
  familySocialConnections: text('familySocialConnections').default(''),
  personalValuesBeliefs: text('personalValuesBeliefs').default(''),
  houseTags: houseTags.default([]),
});
export type CreateResidentBody = z.output<typeof CreateResidentBodySchema>;

/**
 * PUT /api/residents/{id}: the same form. A field left out keeps its value (send it empty to clear it);
 * `removePhoto=true` removes the photo when no new one is sent.
 */
export const UpdateResidentBodySchema = z.object({
  name: residentName.optional(),
  likeToBeCall: likeToBeCall.optional(),
  dateOfBirth: dateOfBirth.optional(),
  interestsHappyPlace: text('interestsHappyPlace').optional(),
  supportNeedsCarePreferences: text('supportNeedsCarePreferences').optional(),
  whatMakesSadAnxious: text('whatMakesSadAnxious').optional(),
  medication: text('medication').optional(),
  strengthsAbilities: text('strengthsAbilities').optional(),
  communicationPreferences: text('communicationPreferences').optional(),
  familySocialConnections: text('familySocialConnections').optional(),
  personalValuesBeliefs: text('personalValuesBeliefs').optional(),
  houseTags: houseTags.optional(),
  removePhoto: z
    .enum(['true', 'false'], { message: 'removePhoto must be true or false' })
    .transform((value) => value === 'true')
    .optional(),
  /**
   * The `updatedAt` of the profile the form was filled from (ISO, as the answers give it). With it, only the fields
   * this form changed from that version are written, onto whatever is stored now (decision 120).
   */
  baseUpdatedAt: z.iso
    .datetime({ message: 'baseUpdatedAt must be a time such as 2026-11-25T09:30:00.000Z' })
    .transform((value) => Date.parse(value))
    .optional(),
  /**
   * A key the device made for the photo it sends: the same key again (a retry after a lost answer) stores nothing
   * more and answers the profile as it is (decision 123).
   */
  photoKey: z.uuid({ message: 'photoKey must be a UUID' }).optional(),
});
export type UpdateResidentBody = z.output<typeof UpdateResidentBodySchema>;

/** The fields of a profile an edit pushed from a device may write (the photo goes through REST; decision 120). */
export const ResidentEditSchema = UpdateResidentBodySchema.omit({
  removePhoto: true,
  baseUpdatedAt: true,
  photoKey: true,
});
export type ResidentEdit = z.output<typeof ResidentEditSchema>;

/** The editable state of a profile, as stored and as the history compares it. */
export type ResidentFields = { [K in ResidentTextField]: string } & {
  name: string;
  likeToBeCall: string;
  dateOfBirth: string | null;
  photoUrl: string | null;
  houseTags: string[];
};

/** One changed field of a version: its value before and after. */
export interface FieldChange {
  field: ResidentField;
  from: string | string[] | null;
  to: string | string[] | null;
}

/** The fields that differ between two states of a profile, in form order (what a version records). */
export function residentChanges(before: ResidentFields | null, after: ResidentFields): FieldChange[] {
  const empty = (value: unknown) => value === null || value === '' || (Array.isArray(value) && value.length === 0);
  return RESIDENT_FIELDS.flatMap((field): FieldChange[] => {
    const from = before ? before[field] : null;
    const to = after[field];
    if (before ? sameJson(from, to) : empty(to)) return [];
    return [{ field, from, to }];
  });
}

/** What a field-by-field merge of an edit did (decision 120). */
export interface ResidentMerge {
  merged: ResidentFields;
  /** The fields this writer changed from its base, applied. */
  mine: ResidentField[];
  /** The fields someone else changed since the base. */
  theirs: ResidentField[];
  /** Fields of `theirs` this writer changed too, to another value: the writer's value was kept. */
  both: ResidentField[];
}

/**
 * Merges an edit made from `base` onto the `current` profile, field by field (decision 120): the writer's fields are
 * those `next` changes from `base`, and only they are written; on a field someone else changed meanwhile too, the
 * later writer (this one) wins, and the caller tells them so.
 */
export function mergeResidentEdit(
  base: ResidentFields,
  next: Partial<ResidentFields>,
  current: ResidentFields,
): ResidentMerge {
  const merged: ResidentFields = { ...current };
  const mine = RESIDENT_FIELDS.filter((field) => next[field] !== undefined && !sameJson(next[field], base[field]));
  for (const field of mine) Object.assign(merged, { [field]: next[field] });
  const theirs = RESIDENT_FIELDS.filter((field) => !sameJson(current[field], base[field]));
  const both = theirs.filter((field) => mine.includes(field) && !sameJson(current[field], merged[field]));
  return { merged, mine, theirs, both };
}

/** How a field's value reads in the history ("(empty)" for nothing). */
export function describeFieldValue(field: ResidentField, value: string | string[] | null): string {
  if (value === null || value === '' || (Array.isArray(value) && value.length === 0)) return '(empty)';
  if (field === 'photoUrl') return 'a photo';
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The creator as the profile shows them ("Created by {name}", docs/behaviour.md, "Residents"); "Deleted user" once the account is gone. */
export const ResidentUserSchema = z.object({
  id: z.string().nullable(),
  firstName: z.string(),
  lastName: z.string(),
});
export type ResidentUser = z.infer<typeof ResidentUserSchema>;

/** A resident as the REST calls answer it (docs/behaviour.md, "Residents"). Times are ISO strings. */
export const ResidentViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  likeToBeCall: z.string(),
  dateOfBirth: z.string().nullable(),
  photoUrl: z.string().nullable(),
  interestsHappyPlace: z.string(),
  supportNeedsCarePreferences: z.string(),
  whatMakesSadAnxious: z.string(),
  medication: z.string(),
  strengthsAbilities: z.string(),
  communicationPreferences: z.string(),
  familySocialConnections: z.string(),
  personalValuesBeliefs: z.string(),
  houseTags: z.array(z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdByUser: ResidentUserSchema,
});
export type ResidentView = z.infer<typeof ResidentViewSchema>;

/** PUT /api/residents/{id}'s answer: the profile, and the merge when someone else changed it since the edit's base. */
export const ResidentEditAnswerSchema = ResidentViewSchema.extend({
  merge: z.object({ mine: z.array(z.string()), theirs: z.array(z.string()), both: z.array(z.string()) }).optional(),
});
export type ResidentEditAnswer = z.infer<typeof ResidentEditAnswerSchema>;

export const RESIDENT_VERSION_ACTIONS = ['create', 'update', 'archive'] as const;
export type ResidentVersionAction = (typeof RESIDENT_VERSION_ACTIONS)[number];

/** One entry of GET /api/residents/{id}/history: who changed what, when (newest first). */
export const ResidentVersionViewSchema = z.object({
  version: z.number().int().positive(),
  action: z.enum(RESIDENT_VERSION_ACTIONS),
  changedAt: z.string(),
  changedBy: ResidentUserSchema,
  changes: z.array(
    z.object({
      field: z.enum(RESIDENT_FIELDS),
      from: z.union([z.string(), z.array(z.string()), z.null()]),
      to: z.union([z.string(), z.array(z.string()), z.null()]),
    }),
  ),
});
export type ResidentVersionView = z.infer<typeof ResidentVersionViewSchema>;
export const ResidentHistorySchema = z.array(ResidentVersionViewSchema);

/** Resident photos are served to signed-in staff only, at /api/residents/photos/{32 hex}.{jpg|png|webp}. */
export { RESIDENT_PHOTO_PREFIX } from './offline';
export const RESIDENT_PHOTO_NAME = /^[0-9a-f]{32}\.(jpg|png|webp)$/;
