import { atom } from 'jotai';
import { PublicConfigSchema, type PublicConfig } from '../../schema/auth';
import { PRODUCT_NAME } from '../../schema/constants';
import { api } from './api';
import { appStore } from './store';

/** GET /api/config: organisation name, support address, handbook, registration mode, set-up state. */
export const publicConfigAtom = atom<PublicConfig | null>(null);

/** What screens show until the configuration has arrived (or if it cannot be read). */
export const FALLBACK_CONFIG: PublicConfig = {
  orgName: PRODUCT_NAME,
  supportEmail: '',
  handbookUrl: '',
  registration: 'approval',
  houses: [],
  needsSetup: false,
};

/** The configuration, or the fallback while it loads. */
export const configAtom = atom((get) => get(publicConfigAtom) ?? FALLBACK_CONFIG);

/** Loads the public configuration once at start; a failure leaves the fallback in place. */
export async function loadPublicConfig(): Promise<void> {
  try {
    appStore.set(publicConfigAtom, PublicConfigSchema.parse(await api.get('/api/config')));
  } catch (error) {
    console.error('Could not load the public configuration', error);
  }
}
