/** Matches `/a/:b/c` patterns against a path; returns the named segments. */
export interface CompiledPath {
  pattern: string;
  match(path: string): Record<string, string> | null;
  /** The same, for a path already split (`pathSegments`): a router splits once for all its routes. */
  matchSegments(segments: readonly string[]): Record<string, string> | null;
}

export const pathSegments = (path: string): string[] => path.split('/').filter(Boolean);

export function compilePath(pattern: string): CompiledPath {
  const parts = pathSegments(pattern);
  const matchSegments = (segments: readonly string[]) => {
    if (segments.length !== parts.length) return null;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      if (parts[i].startsWith(':')) {
        let value: string;
        try {
          value = decodeURIComponent(segments[i]);
        } catch {
          return null;
        }
        params[parts[i].slice(1)] = value;
      } else if (parts[i] !== segments[i]) return null;
    }
    return params;
  };
  return { pattern, match: (path: string) => matchSegments(pathSegments(path)), matchSegments };
}
