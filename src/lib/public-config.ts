import { atom } from 'jotai';
import type { PublicConfig } from '../../schema/auth';
import { isPublicConfig } from '../../schema/auth-rules';
import { PRODUCT_NAME } from '../../schema/constants';
import { KEPT_KEY_ITEM } from '../../schema/offline';
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

/** The last configuration read, so the app opened offline still shows the houses and the footer. */
const CONFIG_KEY = 'sp_public_config';

/** Loads the public configuration once at start; offline it uses the last one read, else the fallback. */
export async function loadPublicConfig(): Promise<void> {
  try {
    const config = await api.get('/api/config');
    if (!isPublicConfig(config)) throw new Error('GET /api/config answered an unexpected shape');
    appStore.set(publicConfigAtom, config);
    try {
      localStorage.setItem(CONFIG_KEY, JSON.stringify(config));
      // Kept for sealing a session's unsent work, offline too (decision 114).
      if (config.keptKey) localStorage.setItem(KEPT_KEY_ITEM, config.keptKey);
    } catch {
      // No storage: only the offline start loses the saved copy.
    }
  } catch (error) {
    const saved = readSaved();
    if (isPublicConfig(saved)) appStore.set(publicConfigAtom, saved);
    else console.error('Could not load the public configuration', error);
  }
}

function readSaved(): unknown {
  try {
    return JSON.parse(localStorage.getItem(CONFIG_KEY) ?? 'null');
  } catch {
    return null;
  }
}
