// @gutenye/ocr-* are ES modules; keep the real dynamic import out of TypeScript's CommonJS output.
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed string, no input reaches it
export const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<any>;
