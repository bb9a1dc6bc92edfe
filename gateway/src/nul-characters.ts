/** True when any string in a parsed GraphQL request (variables, keys, query) holds a NUL character. */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(containsNul);
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.entries(value).some(([k, v]) => k.includes('\0') || containsNul(v));
  }
  return false;
}
