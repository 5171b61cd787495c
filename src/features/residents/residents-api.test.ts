import { describe, expect, it } from 'vitest';
import type { ResidentLocal } from '../../db/collections';
import { residentFormData, type ResidentFormValues } from './residents-api';
import { residentsInHouse } from './use-residents';

const values: ResidentFormValues = {
  name: 'Joan Smith',
  likeToBeCall: 'Joanie',
  dateOfBirth: '',
  houseTags: ['Giles House', 'Apps House'],
  interestsHappyPlace: 'The garden',
  supportNeedsCarePreferences: '',
  whatMakesSadAnxious: '',
  medication: 'Paracetamol',
  strengthsAbilities: '',
  communicationPreferences: '',
  familySocialConnections: '',
  personalValuesBeliefs: '',
};

describe('residentFormData', () => {
  it('sends every field, houseTags as one JSON string, and the photo only when one was chosen', () => {
    const form = residentFormData(values, null);
    expect(form.get('name')).toBe('Joan Smith');
    expect(form.get('dateOfBirth')).toBe('');
    expect(form.get('medication')).toBe('Paracetamol');
    expect(form.getAll('houseTags')).toEqual(['["Giles House","Apps House"]']);
    expect(form.has('photo')).toBe(false);
    const photo = new File([new Uint8Array([1])], 'me.jpg', { type: 'image/jpeg' });
    expect((residentFormData(values, photo).get('photo') as File).name).toBe('me.jpg');
  });
});

describe('residentsInHouse', () => {
  const resident = (id: string, houseTags: string[]) => ({ id, houseTags }) as unknown as ResidentLocal; // only the fields the filter reads
  const all = [resident('a', ['Giles House']), resident('b', ['Apps House', 'Giles House']), resident('c', [])];

  it('keeps everyone without a house, and only that house’s residents with one', () => {
    expect(residentsInHouse(all, null).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect(residentsInHouse(all, 'Giles House').map((r) => r.id)).toEqual(['a', 'b']);
    expect(residentsInHouse(all, 'The Lodges')).toEqual([]);
  });
});
