/** Matches `/a/:b/c` patterns against a path; returns the named segments. */
export interface CompiledPath {
  pattern: string;
  match(path: string): Record<string, string> | null;
}

export function compilePath(pattern: string): CompiledPath {
  const parts = pattern.split('/').filter(Boolean);
  return {
    pattern,
    match(path: string) {
      const segments = path.split('/').filter(Boolean);
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
    },
  };
}
