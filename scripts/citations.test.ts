import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Code comments cite only documents in the repository (docs/…, "decision N"): the house rule this test keeps. */
const ROOTS = ['schema', 'server', 'src', 'sw', 'bench', 'e2e', 'scripts'];
const CODE = /\.(ts|tsx|js|mjs)$/;
const STYLES = /\.css$/;

/** A citation of a document outside the repository: the specification's sections or an issue number. */
const OUTSIDE = [
  { name: 'a spec section', pattern: /\bspec(?:ification)?(?:'s)? sections? \d/i },
  { name: 'a bare spec citation', pattern: /\(spec\b[^)]*\)|\bspec \d/i },
  { name: 'an issue number', pattern: /\bissues? #?\d/i },
];

const BEHAVIOUR_CITATION = /docs\/behaviour\.md, "([^"]+)"/g;
const DOCUMENT_CITATION = /\bdocs\/[\w./-]+\.md\b/g;

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : listFiles(path);
    return CODE.test(entry.name) || STYLES.test(entry.name) ? [path] : [];
  });
}

/** Every comment of a TypeScript or JavaScript file, JSX comments included, found by the parser (never in strings). */
function commentsOf(fileName: string, text: string): string[] {
  if (STYLES.test(fileName)) return text.match(/\/\*[\s\S]*?\*\//g) ?? [];
  const kind = fileName.endsWith('.tsx')
    ? ts.ScriptKind.TSX
    : fileName.endsWith('.ts')
      ? ts.ScriptKind.TS
      : ts.ScriptKind.JS;
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, kind);
  const found = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const range of ranges ?? []) found.set(range.pos, text.slice(range.pos, range.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    // getChildren includes tokens, so a comment before a closing brace (`{/* … */}` in JSX) is reached too.
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return [...found.values()];
}

function headingsOfBehaviour(): Set<string> {
  const text = readFileSync('docs/behaviour.md', 'utf8');
  return new Set([...text.matchAll(/^#{2,6} (.+)$/gm)].map((match) => match[1].trim()));
}

const files = ROOTS.flatMap((root) => listFiles(root)).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
const comments = files.map(({ path, text }) => ({ path, comments: commentsOf(path, text) }));

describe('code comments cite only documents in the repository', () => {
  it('finds comments of every kind and nothing inside strings', () => {
    const code = [
      '// line',
      '/** block */',
      'const s = "// not a comment";',
      'const t = `/* nor this */`;',
      'export const x = <div>{/* jsx */}</div>;',
    ].join('\n');
    expect(commentsOf('x.tsx', code)).toEqual(['// line', '/** block */', '/* jsx */']);
    expect(commentsOf('x.css', 'a { color: red; } /* css */')).toEqual(['/* css */']);
  });

  it('reads the code of every root', () => {
    expect(files.length).toBeGreaterThan(100);
    for (const root of ROOTS)
      expect(
        files.some(({ path }) => path.startsWith(`${root}/`)),
        root,
      ).toBe(true);
  });

  it('has no comment citing a section of the specification or an issue number', () => {
    const problems = comments.flatMap(({ path, comments: list }) =>
      list.flatMap((comment) =>
        OUTSIDE.filter(({ pattern }) => pattern.test(comment)).map(({ name }) => `${path}: ${name} in ${comment}`),
      ),
    );
    expect(problems).toEqual([]);
  });

  it('has no test or text naming a section of the specification', () => {
    const problems = files.filter(({ text }) => OUTSIDE[0].pattern.test(text)).map(({ path }) => path);
    expect(problems).toEqual([]);
  });

  it('names an existing heading of docs/behaviour.md in every citation of it', () => {
    const headings = headingsOfBehaviour();
    expect(headings.size).toBeGreaterThan(10);
    const cited = files.flatMap(({ path, text }) =>
      [...text.matchAll(BEHAVIOUR_CITATION)].map((match) => ({ path, heading: match[1] })),
    );
    expect(cited.length).toBeGreaterThan(100);
    expect(cited.filter(({ heading }) => !headings.has(heading))).toEqual([]);
  });

  it('cites only documents that exist', () => {
    const missing = comments.flatMap(({ path, comments: list }) =>
      list
        .flatMap((comment) => [...comment.matchAll(DOCUMENT_CITATION)].map((match) => match[0]))
        .filter((document) => !existsSync(document))
        .map((document) => `${path}: ${document}`),
    );
    expect(missing).toEqual([]);
  });
});
