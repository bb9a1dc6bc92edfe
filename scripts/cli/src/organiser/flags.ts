/** `--name value` pairs; `--no-x` and bare switches (`--yes`, `--json`, `--help`) are "true". */
export type Flags = Record<string, string>;

const SWITCHES = new Set(['yes', 'json', 'help', 'wait', 'read-only', 'queue-after-import', 'replace', 'skip-invalid']);

export function parseFlags(args: string[]): Flags {
  const flags: Flags = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--') || arg === '--')
      throw new Error(`unexpected argument "${arg}" (options are --name value)`);
    const name = arg.slice(2);
    if (name.startsWith('no-') || SWITCHES.has(name)) {
      flags[name] = 'true';
      continue;
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new Error(`--${name} needs a value`);
    flags[name] = value;
    i++;
  }
  return flags;
}

export function need(flags: Flags, name: string): string {
  if (!flags[name]) throw new Error(`--${name} is required`);
  return flags[name];
}

export function positiveInt(flags: Flags, name: string): number {
  const n = Number(need(flags, name));
  if (!/^\d+$/.test(flags[name]) || !Number.isSafeInteger(n) || n < 1)
    throw new Error(`--${name} must be a positive integer`);
  return n;
}

/** A number for the services to validate (their message names the range); "null" or "none" clears. */
export function numberOrNull(flags: Flags, name: string): number | null | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (value === 'null' || value === 'none') return null;
  if (!/^-?\d+(\.\d+)?$/.test(value)) throw new Error(`--${name} must be a number (or none)`);
  return Number(value);
}

export function booleanFlag(flags: Flags, name: string): boolean | undefined {
  const value = flags[name];
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new Error(`--${name} must be true or false`);
  return value === 'true';
}

export const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
