import { z } from 'zod';

// The app's CSP allows no eval: without this, zod's first parse probes `new Function` and the browser reports
// a CSP violation on every page (harmless, but noise in the console and in Lighthouse's best practices).
z.config({ jitless: true });
