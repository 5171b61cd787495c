/**
 * The fields of a resident's profile, apart from their zod schemas in residents.ts, so the sync protocol's constants
 * (sync-protocol.ts, zod-free since decision 106) can name them. residents.ts exports them too.
 */

/** The free-text parts of a profile, in the order the form and the view show them. */
export const RESIDENT_TEXT_FIELDS = [
  'interestsHappyPlace',
  'supportNeedsCarePreferences',
  'whatMakesSadAnxious',
  'medication',
  'strengthsAbilities',
  'communicationPreferences',
  'familySocialConnections',
  'personalValuesBeliefs',
] as const;
export type ResidentTextField = (typeof RESIDENT_TEXT_FIELDS)[number];

/** Every field a person edits, photo and houses included; the history names changes by these. */
export const RESIDENT_FIELDS = [
  'name',
  'likeToBeCall',
  'dateOfBirth',
  'photoUrl',
  ...RESIDENT_TEXT_FIELDS,
  'houseTags',
] as const;
export type ResidentField = (typeof RESIDENT_FIELDS)[number];
