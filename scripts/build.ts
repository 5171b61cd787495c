// `npm run build`: the client into dist/ (Vite) and the server into dist-server/ (esbuild), for `npm start` and a
// production install without the build tools (docs/deploy.md, decision 135).
import { buildClient, loadViteBuild } from '../server/build-client';
import { buildServer, SERVER_OUT_DIR } from './build-server';

const build = await loadViteBuild();
if (!build) throw new Error('Vite is not installed: npm run build needs the development dependencies (npm ci).');
await buildClient(build);
await buildServer();
console.log(`Server built into ${SERVER_OUT_DIR}`);
