// `npm run check`: the type-check, the lint and the format check side by side. Each is one process that keeps one core
// busy, so together they take about as long as the lint alone. Each one's output is printed whole once it ends.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../server/lib/paths';

const CHECKS: [string, string[]][] = [
  ['tsc', ['--noEmit', '-p', 'tsconfig.json']],
  ['eslint', ['.']],
  ['prettier', ['--check', '.']],
];

function run(tool: string, args: string[]): Promise<{ shown: string; output: string; ok: boolean; seconds: number }> {
  const shown = `${tool} ${args.join(' ')}`;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(path.join(ROOT, 'node_modules', '.bin', tool), args, { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const done = (ok: boolean) => resolve({ shown, output, ok, seconds: Math.round((Date.now() - started) / 1000) });
    child.once('error', (error) => {
      output += `${error.message}\n`;
      done(false);
    });
    child.once('close', (code) => done(code === 0));
  });
}

const results = await Promise.all(CHECKS.map(([tool, args]) => run(tool, args)));
for (const { shown, output, ok, seconds } of results) {
  console.log(`> ${shown}: ${ok ? 'passed' : 'FAILED'} in ${seconds} s`);
  if (output.trim() !== '') console.log(output.trimEnd());
}
const failed = results.filter((result) => !result.ok);
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.map((result) => result.shown).join(', ')}`);
  process.exit(1);
}
