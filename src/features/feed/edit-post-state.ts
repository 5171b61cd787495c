import { atom } from 'jotai';
import type { PostLocal } from '../../db/collections';

/**
 * The post being edited, as the edit button saw it. The feed hosts the edit dialog, not the card, so the dialog
 * and its text stay when the post is deleted meanwhile and its card goes (decision 117).
 */
export const editingPostAtom = atom<PostLocal | null>(null);
