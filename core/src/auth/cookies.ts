/** The cookies of a request's `Cookie` header by name (the first of a name wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Record<string, string> {
  // No prototype: a cookie named `__proto__` or `constructor` is a cookie like any other.
  const out = Object.create(null) as Record<string, string>;
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    const name = part.slice(0, eq).trim();
    if (eq > 0 && name && !Object.hasOwn(out, name)) out[name] = part.slice(eq + 1).trim();
  }
  return out;
}

/** Every value a request's `Cookie` header holds for `name` (another host of the domain may have set one more). */
export function cookieValues(header: string | undefined, name: string): string[] {
  const values: string[] = [];
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
  }
  return values;
}
