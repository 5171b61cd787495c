import { describe, expect, it } from 'vitest';
import {
  categoryLabel,
  categoryValues,
  CreatePostBodySchema,
  keptHouseTags,
  ListPostsQuerySchema,
  UpdatePostBodySchema,
} from './posts';
import { fileExtension, isAllowedUploadName, uploadIdFromUrl } from './uploads';

describe('post categories, their labels and legacy values', () => {
  it('labels the five, shows legacy values as their modern label, anything else as "General"', () => {
    expect(categoryLabel('shifts_lifts')).toBe('Shifts & Lifts');
    expect(categoryLabel('business')).toBe('Buildings and Maintenance');
    expect(categoryLabel('activity')).toBe('Residents Activities');
    expect(categoryLabel('wages')).toBe('Wages and HR');
    expect(categoryLabel('gossip')).toBe('General');
    expect(categoryLabel(null)).toBe('General');
  });

  it('filters a category together with its legacy alias', () => {
    expect(categoryValues('residents_activities')).toEqual(['residents_activities', 'activity']);
    expect(categoryValues('shifts_lifts')).toEqual(['shifts_lifts']);
    expect(ListPostsQuerySchema.parse({ category: 'wages' }).category).toBe('wages_hr');
    expect(ListPostsQuerySchema.parse({ category: 'all' }).category).toBeUndefined();
  });
});

describe('the post form: content, category, urgency, houses and files', () => {
  it('trims content, defaults the category and urgency, and reads "true" from a form', () => {
    expect(CreatePostBodySchema.parse({ content: '  Hi  ' })).toMatchObject({
      content: 'Hi',
      category: 'company_announcement',
      isUrgent: false,
      houseTags: [],
      images: [],
      attachments: [],
    });
    expect(CreatePostBodySchema.parse({ content: 'Hi', isUrgent: 'true', category: '' })).toMatchObject({
      isUrgent: true,
      category: 'company_announcement',
    });
  });

  it('keeps house tags only for Residents Activities (legacy "activity" included), without repeats', () => {
    const tags = ['Apps House', 'Apps House', 'Giles House'];
    expect(CreatePostBodySchema.parse({ content: 'Hi', category: 'activity', houseTags: tags }).houseTags).toEqual([
      'Apps House',
      'Giles House',
    ]);
    expect(CreatePostBodySchema.parse({ content: 'Hi', category: 'wages_hr', houseTags: tags }).houseTags).toEqual([]);
    expect(keptHouseTags('business', ['Apps House'])).toEqual([]);
  });

  it('says what is wrong', () => {
    const message = (value: unknown) => CreatePostBodySchema.safeParse(value).error?.issues[0].message;
    expect(message({ content: ' \n ' })).toBe('Post content is required');
    expect(message({ content: 'Hi', category: 'gossip' })).toBe(
      'Category must be one of: buildings_maintenance, company_announcement, residents_activities, wages_hr, shifts_lifts',
    );
    expect(UpdatePostBodySchema.safeParse({ content: '' }).error?.issues[0].message).toBe('Post content is required');
  });
});

describe('upload names', () => {
  it('checks the extension case-insensitively and reads upload ids from URLs', () => {
    expect(fileExtension('Photo.JPG')).toBe('jpg');
    expect(isAllowedUploadName('minutes.docx')).toBe(true);
    expect(isAllowedUploadName('logo.svg')).toBe(false);
    expect(uploadIdFromUrl('/api/uploads/0f8e-12')).toBe('0f8e-12');
    expect(uploadIdFromUrl('/api/uploads/../secret')).toBeNull();
    expect(uploadIdFromUrl('https://elsewhere.example/x.png')).toBeNull();
  });
});
