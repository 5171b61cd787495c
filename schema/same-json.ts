/**
 * Structural equality of JSON values: key order does not matter and a key holding `undefined` counts as absent. The
 * one equality helper of both sides (decision 134).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    // Plain JSON objects: indexing by key is what the comparison needs.
    const ra = a as Record<string, unknown>;
    // As above.
    const rb = b as Record<string, unknown>;
    const ka = Object.keys(ra).filter((k) => ra[k] !== undefined);
    const kb = Object.keys(rb).filter((k) => rb[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => sameJson(ra[k], rb[k]));
  }
  return false;
}
