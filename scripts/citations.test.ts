import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Code comments cite only documents in the repository (docs/…, "decision N"): the house rule this test keeps. */
const ROOTS = ['schema', 'server', 'src', 'sw', 'bench', 'e2e', 'scripts'];
const CODE = /\.(ts|tsx|js|mjs)$/;
const STYLES = /\.css$/;

/** A citation of a document outside the repository: the customer's requirements by section, or an issue number. */
const OUTSIDE = [
  { name: 'a spec section', pattern: /\bspec(?:ification)?(?:'s)? sections? \d/i },
  { name: 'a bare spec citation', pattern: /\(spec\b[^)]*\)|\bspec \d/i },
  { name: 'an issue number', pattern: /\bissues? #?\d/i },
];

/**
 * The customer's requirements named at all (the word, a section of them, their file): the project's own documents
 * say the rule instead; only a decision record explaining a departure may name them. This file, which must name what
 * it looks for, is left out; `.spec.ts` names and decision records' file names (joined by hyphens) are not mentions.
 */
const SPEC_MENTIONS = [/(?<![\w./-])spec(?:ification)?s?(?:['’]s)?\b(?![.-]\w)/i, /\bSPEC\.md\b/i];
const SELF = join('scripts', 'citations.test.ts');
/** Documents held to the same rule as comments: every Markdown file outside the decision records. */
const DOCUMENT_ROOTS = ['docs', 'bench'];

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

function listDocuments(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join('docs', 'decisions') ? [] : listDocuments(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

function mentionsSpec(text: string): boolean {
  return SPEC_MENTIONS.some((pattern) => pattern.test(text));
}

const files = ROOTS.flatMap((root) => listFiles(root)).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
const comments = files.map(({ path, text }) => ({ path, comments: commentsOf(path, text) }));

const documents = ['README.md', ...DOCUMENT_ROOTS.flatMap((root) => listDocuments(root))].map((path) => ({
  path,
  text: readFileSync(path, 'utf8'),
}));

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

  it("tells a mention of the customer's requirements from file names and other words", () => {
    for (const text of ['the spec', "the spec's offline item", 'the spec’s message', 'the specification', 'Spec: x'])
      expect(mentionsSpec(text), text).toBe(true);
    expect(mentionsSpec('as its spec section says')).toBe(true);
    expect(mentionsSpec('see SPEC.md')).toBe(true);
    for (const text of ['e2e/feed.spec.ts', '041-feed-details-the-spec-leaves-open.md', 'specified', 'respects'])
      expect(mentionsSpec(text), text).toBe(false);
  });

  it('has no comment naming the customer\'s requirements ("the spec", a spec section, SPEC.md)', () => {
    const problems = comments
      .filter(({ path }) => path !== SELF)
      .flatMap(({ path, comments: list }) =>
        list.filter((comment) => mentionsSpec(comment)).map((comment) => `${path}: ${comment}`),
      );
    expect(problems).toEqual([]);
  });

  it('has no test name or other text saying "the spec"', () => {
    const problems = files
      .filter(({ path }) => path !== SELF)
      .filter(({ text }) => /\bthe\s+spec(?:ification)?\b|\bSPEC\.md\b/i.test(text))
      .map(({ path }) => path);
    expect(problems).toEqual([]);
  });

  it("has no document outside the decision records naming the customer's requirements", () => {
    expect(documents.map(({ path }) => path)).toEqual(
      expect.arrayContaining(['README.md', join('docs', 'behaviour.md'), join('bench', 'RESULTS.md')]),
    );
    expect(documents.some(({ path }) => path.startsWith(join('docs', 'decisions')))).toBe(false);
    const problems = documents.flatMap(({ path, text }) =>
      text
        .split('\n')
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => mentionsSpec(line))
        .map(({ line, index }) => `${path}:${index + 1}: ${line.trim()}`),
    );
    expect(problems).toEqual([]);
  });

  it('names an existing heading of docs/behaviour.md in every citation of it', () => {
    const headings = headingsOfBehaviour();
    expect(headings.size).toBeGreaterThan(10);
    const cited = [...files, ...documents].flatMap(({ path, text }) =>
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
