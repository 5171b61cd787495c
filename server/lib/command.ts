import path from 'node:path';

/**
 * Whether this process was started as the command `name`: `server/<name>.ts` from source or `dist-server/<name>.js`
 * built. By the file's name, because a built command holds the code of those it imports (decision 135).
 */
export function isCommand(name: string, script: string | undefined = process.argv[1]): boolean {
  return script !== undefined && path.basename(script).replace(/\.(ts|js)$/, '') === name;
}
