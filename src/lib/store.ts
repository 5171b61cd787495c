import { createStore } from 'jotai';

/** The one jotai store of the app, so plain functions (toast, sign-out) can read and write the same atoms. */
export const appStore = createStore();
