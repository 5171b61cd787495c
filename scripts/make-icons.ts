// Renders the app icons (PNG, regular and maskable) from public/logo.svg with sharp. Run once after the logo
// changes: node --import tsx scripts/make-icons.ts
import fs from 'node:fs';
import sharp from 'sharp';

const logo = fs.readFileSync('public/logo.svg');
const BRAND = '#4C307D';

for (const size of [192, 512]) {
  await sharp(logo, { density: 600 }).resize(size, size).png().toFile(`public/icons/icon-${size}.png`);
  // Maskable: the mark inside the 80% safe zone on a full-bleed brand background.
  const inner = Math.round(size * 0.7);
  const mark = await sharp(logo, { density: 600 }).resize(inner, inner).png().toBuffer();
  await sharp({ create: { width: size, height: size, channels: 4, background: BRAND } })
    .composite([{ input: mark, gravity: 'center' }])
    .png()
    .toFile(`public/icons/maskable-${size}.png`);
}
await sharp(logo, { density: 600 })
  .resize(180, 180)
  .flatten({ background: BRAND })
  .png()
  .toFile('public/icons/apple-touch-icon.png');
console.log('icons written to public/icons/');
