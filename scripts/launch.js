// `npm start`, `npm run backup`, `npm run restore`, `npm run migrate-to-postgres`: the server's sources through tsx
// where the development dependencies are installed, else its build in dist-server/ (`npm run build`, then
// `npm ci --omit=dev`). Plain JavaScript, so it runs on a production install, which has no tsx (decision 135).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const COMMANDS = ['main', 'backup', 'restore', 'migrate-to-postgres'];
const root = path.resolve(import.meta.dirname, '..');
const [command = ''] = process.argv.slice(2);

function installed(name) {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

if (!COMMANDS.includes(command)) {
  console.error(`Usage: node scripts/launch.js <${COMMANDS.join('|')}> [arguments]`);
  process.exit(2);
}
const source = path.join(root, 'server', `${command}.ts`);
const built = path.join(root, 'dist-server', `${command}.js`);
let file;
if (installed('tsx') && fs.existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  file = source;
} else if (fs.existsSync(built)) {
  process.setSourceMapsEnabled(true);
  file = built;
} else {
  console.error(
    `Neither the built server (${path.relative(root, built)}) nor tsx to run its sources is here.\n` +
      'Install with the development dependencies (npm ci), or build first: npm ci && npm run build, ' +
      'then npm ci --omit=dev for a production install (docs/deploy.md).',
  );
  process.exit(1);
}
// The command sees itself as the script node started (server/lib/command.ts).
process.argv.splice(1, 2, file);
await import(pathToFileURL(file).href);
