/** How deep a request's JSON (GraphQL variables, REST bodies) may nest: far beyond any real input. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when a parsed JSON value nests arrays and objects deeper than `maxDepth`. It walks with its
 * own stack, never recursion, so it is safe to run before any recursive walk of untrusted input.
 */
export function jsonDepthExceeds(value: unknown, maxDepth = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if (!current || typeof current !== 'object') continue;
    if (depth + 1 > maxDepth) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children)
      if (child && typeof child === 'object') stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}
