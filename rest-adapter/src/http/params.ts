import { AppError, ErrorCode } from '@em/core';

/** What a route's variables are read from: the matched path, the query string and the body. */
export interface RequestInput {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

/** How a reader appears in the OpenAPI document: where the value comes from, its name and JSON schema. */
export interface ParamDoc {
  in: 'path' | 'query' | 'body';
  /** The spec's name (snake_case). */
  name: string;
  /** For path parameters: the segment name in the route pattern (`:orgId`). */
  segment?: string;
  required?: boolean;
  schema: Record<string, unknown>;
  description?: string;
}

export type Reader<T> = ((input: RequestInput) => T) & { doc: ParamDoc[] };

const documented = <T>(read: (input: RequestInput) => T, ...doc: ParamDoc[]): Reader<T> => Object.assign(read, { doc });

const INT32_MAX = 2147483647;

/** A path id (`org_id`, `event_id`): digits that fit a 32-bit integer, else 400. */
export const pathInt = (segment: string, name: string): Reader<number> =>
  documented(
    (input) => {
      const raw = input.params[segment];
      if (!/^\d{1,10}$/.test(raw) || Number(raw) > INT32_MAX || Number(raw) < 1)
        throw new AppError('BAD_REQUEST', `${name} must be a positive integer`);
      return Number(raw);
    },
    { in: 'path', name, segment, required: true, schema: { type: 'integer', minimum: 1, maximum: INT32_MAX } },
  );

export const pathString = (segment: string, name: string, description?: string): Reader<string> =>
  documented((input) => input.params[segment], {
    in: 'path',
    name,
    segment,
    required: true,
    schema: { type: 'string' },
    description,
  });

/**
 * An optional integer query parameter (`page`, `page_size`): absent -> undefined; not an integer
 * -> 400. Range rules (positive, maximum) are the service's.
 */
export const queryInt = (name: string, description?: string): Reader<number | undefined> =>
  documented(
    (input) => {
      const raw = input.query.get(name);
      if (raw === null || raw === '') return undefined;
      if (!/^-?\d{1,10}$/.test(raw.trim()) || Math.abs(Number(raw)) > INT32_MAX) {
        throw new AppError('BAD_REQUEST', `${name} must be a positive integer`);
      }
      return Number(raw);
    },
    { in: 'query', name, schema: { type: 'integer', minimum: 1 }, description },
  );

/** A required integer query parameter whose absence or malformation has its own status (422 for the timeline window). */
export const requiredQueryInt = (name: string, invalid: ErrorCode, description?: string): Reader<number> =>
  documented(
    (input) => {
      const raw = input.query.get(name)?.trim();
      if (raw === undefined || raw === '') throw new AppError(invalid, `${name} is required (an integer)`);
      if (!/^-?\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw)))
        throw new AppError(invalid, `${name} must be an integer`);
      return Number(raw);
    },
    { in: 'query', name, required: true, schema: { type: 'integer' }, description },
  );

/** A required text query parameter of at most `maxChars` characters; absent or empty -> 400. */
export const requiredQueryString = (name: string, maxChars: number, description?: string): Reader<string> =>
  documented(
    (input) => {
      const raw = input.query.get(name)?.trim();
      if (!raw) throw new AppError('BAD_REQUEST', `${name} is required`);
      if (raw.length > maxChars) throw new AppError('BAD_REQUEST', `${name} is at most ${maxChars} characters`);
      return raw;
    },
    { in: 'query', name, required: true, schema: { type: 'string', maxLength: maxChars }, description },
  );

/** Readers of any variables, as the OpenAPI document and the path ids see them. */
export type VariableSpec = Record<string, Reader<unknown>>;

type RequiredKeys<V> = { [K in keyof V]-?: undefined extends V[K] ? never : K }[keyof V];

/**
 * One reader per variable of an operation (`V`, generated from the schema): a required variable's
 * reader gives its type, an optional one's may also give undefined (then it is left out).
 */
export type VariableReaders<V> = { [K in keyof V]-?: Reader<K extends RequiredKeys<V> ? V[K] : V[K] | undefined> };

/** Reads every variable of a route; the first invalid one is the error. */
export function readVariables<V>(spec: VariableReaders<V>, input: RequestInput): V {
  const out: Record<string, unknown> = {};
  for (const [key, read] of Object.entries<Reader<unknown>>(spec)) {
    const value = read(input);
    if (value !== undefined) out[key] = value;
  }
  // Each required key of V has a reader returning its type (VariableReaders), and each value is its reader's.
  return out as V;
}

function bodyObject(input: RequestInput): Record<string, unknown> {
  if (input.body === undefined || input.body === null) return {};
  if (typeof input.body !== 'object' || Array.isArray(input.body))
    throw new AppError('BAD_REQUEST', 'The request body must be a JSON object');
  return input.body as Record<string, unknown>;
}

/** An optional array of strings in the JSON body. */
export const bodyStringArray = (name: string, description?: string): Reader<string[] | undefined> =>
  documented(
    (input) => {
      const value = bodyObject(input)[name];
      if (value === undefined || value === null) return undefined;
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
        throw new AppError('BAD_REQUEST', `${name} must be an array of strings`);
      return value as string[];
    },
    { in: 'body', name, schema: { type: 'array', items: { type: 'string' } }, description },
  );

/** An optional boolean in the JSON body. */
export const bodyBoolean = (name: string, description?: string): Reader<boolean | undefined> =>
  documented(
    (input) => {
      const value = bodyObject(input)[name];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'boolean') throw new AppError('BAD_REQUEST', `${name} must be true or false`);
      return value;
    },
    { in: 'body', name, schema: { type: 'boolean' }, description },
  );

/** The variable of an upload: filled with the files by the multipart request, never read from the request's fields. */
export const filledByUpload: Reader<undefined> = documented(() => undefined);

/** A route whose JSON body may carry nothing: still refuses a body that is not an object. */
export const noBodyFields: Reader<undefined> = documented((input) => {
  bodyObject(input);
  return undefined;
});

/** An optional string in the JSON body or a multipart text field. */
export const bodyString = (
  name: string,
  description?: string,
  schema: Record<string, unknown> = { type: 'string' },
): Reader<string | undefined> =>
  documented(
    (input) => {
      const value = bodyObject(input)[name];
      if (value === undefined || value === null || value === '') return undefined;
      if (typeof value !== 'string') throw new AppError('BAD_REQUEST', `${name} must be a string`);
      return value;
    },
    { in: 'body', name, schema, description },
  );

/** An optional text in the JSON body, passed on as it is (empty or null too: the service judges it); else a 400. */
export const bodyText = (name: string, schema: Record<string, unknown>): Reader<string | null | undefined> =>
  documented(
    (input) => {
      const value = bodyObject(input)[name];
      if (value === undefined || value === null || typeof value === 'string') return value;
      throw new AppError('BAD_REQUEST', `${name} must be a string`);
    },
    { in: 'body', name, schema },
  );

/** A JSON body value passed on as it is (any JSON type): the service judges it. */
export const bodyValue = (name: string, schema: Record<string, unknown>, description?: string): Reader<unknown> =>
  documented((input) => bodyObject(input)[name], { in: 'body', name, schema, description });

/** A true/false flag sent as a query parameter, a multipart text field or a JSON boolean; anything else is a 400. */
export const flag = (name: string, description?: string): Reader<boolean | undefined> =>
  documented(
    (input) => {
      const raw = input.query.get(name) ?? bodyObject(input)[name];
      if (raw === undefined || raw === null || raw === '') return undefined;
      if (raw === true || raw === 'true' || raw === '1') return true;
      if (raw === false || raw === 'false' || raw === '0') return false;
      throw new AppError('BAD_REQUEST', `${name} must be true or false`);
    },
    {
      in: 'query',
      name,
      schema: { type: 'boolean' },
      description: `${description ?? ''} Also accepted as a form field.`.trim(),
    },
    { in: 'body', name, schema: { type: 'string', enum: ['true', 'false'] }, description },
  );
