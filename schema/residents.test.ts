import { describe, expect, it } from 'vitest';
import {
  CreateResidentBodySchema,
  describeFieldValue,
  isValidBirthDate,
  mergeResidentEdit,
  RESIDENT_FIELDS,
  residentChanges,
  UpdateResidentBodySchema,
  type ResidentFields,
} from './residents';
import { SYNC_WRITABLE_FIELDS } from './sync-protocol';

const profile: ResidentFields = {
  name: 'Joan Smith',
  likeToBeCall: 'Joanie',
  dateOfBirth: '1941-03-09',
  photoUrl: null,
  interestsHappyPlace: 'The garden',
  supportNeedsCarePreferences: '',
  whatMakesSadAnxious: '',
  medication: 'Paracetamol',
  strengthsAbilities: '',
  communicationPreferences: '',
  familySocialConnections: '',
  personalValuesBeliefs: '',
  houseTags: ['Giles House'],
};

describe('residentChanges', () => {
  it('lists the filled-in fields of a new profile, in form order', () => {
    expect(residentChanges(null, profile).map((c) => c.field)).toEqual([
      'name',
      'likeToBeCall',
      'dateOfBirth',
      'interestsHappyPlace',
      'medication',
      'houseTags',
    ]);
  });

  it('lists only what differs between two versions, with both values', () => {
    const after = { ...profile, medication: 'Aspirin', houseTags: ['Giles House', 'Apps House'] };
    expect(residentChanges(profile, after)).toEqual([
      { field: 'medication', from: 'Paracetamol', to: 'Aspirin' },
      { field: 'houseTags', from: ['Giles House'], to: ['Giles House', 'Apps House'] },
    ]);
    expect(residentChanges(profile, { ...profile })).toEqual([]);
  });
});

describe('isValidBirthDate', () => {
  const today = new Date('2026-05-01T12:00:00Z');
  it.each([
    ['1941-03-09', 'ok'],
    ['2026-05-01', 'ok'],
    ['2026-05-02', 'future'],
    ['1941-02-30', 'invalid'],
    ['9/3/1941', 'invalid'],
    ['1700-01-01', 'invalid'],
  ])('judges %s as %s', (value, expected) => {
    expect(isValidBirthDate(value, today)).toBe(expected);
  });
});

describe('the resident form schemas', () => {
  it('fill a new profile with empty values and trim the name', () => {
    expect(CreateResidentBodySchema.parse({ name: ' Joan ' })).toMatchObject({
      name: 'Joan',
      likeToBeCall: '',
      dateOfBirth: null,
      medication: '',
      houseTags: [],
    });
  });

  it('leave out of an edit what was not sent, and read an empty date as none', () => {
    expect(UpdateResidentBodySchema.parse({ medication: 'X', dateOfBirth: '' })).toEqual({
      medication: 'X',
      dateOfBirth: null,
    });
  });
});

it('describes history values for people, not as raw data', () => {
  expect(describeFieldValue('medication', '')).toBe('(empty)');
  expect(describeFieldValue('houseTags', ['A', 'B'])).toBe('A, B');
  expect(describeFieldValue('photoUrl', '/api/residents/photos/x.jpg')).toBe('a photo');
});

describe('mergeResidentEdit (decision 120)', () => {
  const base: ResidentFields = {
    name: 'Margaret Hale',
    likeToBeCall: '',
    dateOfBirth: null,
    photoUrl: null,
    interestsHappyPlace: 'Gardens',
    supportNeedsCarePreferences: '',
    whatMakesSadAnxious: '',
    medication: 'None',
    strengthsAbilities: '',
    communicationPreferences: 'Speak slowly',
    familySocialConnections: '',
    personalValuesBeliefs: '',
    houseTags: ['Giles House'],
  };

  it('writes only the fields the edit changed from its base onto the current profile', () => {
    const current = { ...base, interestsHappyPlace: 'Birds' };
    const merge = mergeResidentEdit(base, { ...base, medication: 'Aspirin' }, current);
    expect(merge).toEqual({
      merged: { ...base, interestsHappyPlace: 'Birds', medication: 'Aspirin' },
      mine: ['medication'],
      theirs: ['interestsHappyPlace'],
      both: [],
    });
  });

  it('lets the later writer win a field both changed, and names it; the same value twice is no clash', () => {
    const current = { ...base, communicationPreferences: 'Picture board', medication: 'Aspirin' };
    const merge = mergeResidentEdit(base, { communicationPreferences: 'Face to face', medication: 'Aspirin' }, current);
    expect(merge.merged.communicationPreferences).toBe('Face to face');
    expect(merge.theirs).toEqual(['medication', 'communicationPreferences']);
    expect(merge.both).toEqual(['communicationPreferences']);
  });

  it('changes nothing when the edit is what the base was', () => {
    const current = { ...base, houseTags: ['Giles House', 'Oak House'] };
    expect(mergeResidentEdit(base, base, current)).toMatchObject({ merged: current, mine: [], both: [] });
  });

  it('lets a device push every field the form edits but the photo', () => {
    expect([...SYNC_WRITABLE_FIELDS.residents].sort()).toEqual(
      RESIDENT_FIELDS.filter((field) => field !== 'photoUrl').sort(),
    );
  });
});
