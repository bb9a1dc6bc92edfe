/** Decoding %XX byte by byte: enough to find ASCII `.`, `/`, `\` and NUL, and never throws on a malformed escape. */
const decodeBytes = (s: string) =>
  s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * Why a client-given object key cannot be used, or null. The object store judges a path on every
 * decoding of it, so a key is judged the same way here (and refused with a 400) rather than fail
 * in the store: a `.`/`..` or empty segment, a backslash, a NUL or a control character at any depth of decoding.
 */
export function unsafeObjectKeyReason(key: string): string | null {
  let decoded = key;
  for (let next = decodeBytes(decoded); ; next = decodeBytes(decoded)) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(decoded)) return 'a control character';
    if (decoded.includes('\\')) return 'a backslash';
    if (decoded.split('/').some((segment) => segment === '.' || segment === '..' || segment === ''))
      return 'an empty, "." or ".." segment';
    if (next === decoded) return null;
    decoded = next;
  }
}
