import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/**
 * Checks REST responses against the OpenAPI document the platform serves (/openapi.json): a route
 * or status the document does not list, or a body that does not match its schema, fails the test.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly operations: Array<{
    method: string;
    pattern: RegExp;
    template: string;
    responses: Record<string, any>;
  }> = [];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: any) {
    addFormats(this.ajv as never);
    this.ajv.addSchema({ $id: 'openapi', components: doc.components });
    for (const [template, methods] of Object.entries<any>(doc.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries<any>(methods))
        this.operations.push({ method: method.toUpperCase(), pattern, template, responses: op.responses });
    }
  }

  static async load(restUrl: string): Promise<OpenApiContract> {
    return new OpenApiContract(await (await fetch(`${restUrl}/openapi.json`)).json());
  }

  /** Throws when the response is not what the document says this route answers. */
  check(method: string, pathname: string, status: number, body: unknown): void {
    const candidates = this.operations.filter((o) => o.pattern.test(pathname));
    const op = candidates.find((o) => o.method === method);
    if (!op) {
      // Unknown paths and methods answer in the error envelope (404, 405).
      return this.validate(
        'ErrorEnvelope',
        { $ref: 'openapi#/components/schemas/ErrorEnvelope' },
        body,
        `${method} ${pathname}`,
      );
    }
    let response = op.responses[String(status)];
    if (!response) throw new Error(`OpenAPI: ${method} ${op.template} does not document status ${status}`);
    if (response.$ref) response = this.doc.components.responses[response.$ref.split('/').pop()];
    if (!response.content) {
      // A response documented without content (304) has no body.
      if (body !== '')
        throw new Error(
          `OpenAPI: ${method} ${op.template} ${status} has no body, got ${JSON.stringify(body).slice(0, 200)}`,
        );
      return;
    }
    const schema = response.content['application/json'].schema;
    this.validate(`${method} ${op.template} ${status}`, schema, body, `${method} ${pathname} -> ${status}`);
  }

  private validate(key: string, schema: unknown, body: unknown, what: string): void {
    let validate = this.validators.get(key);
    if (!validate) {
      validate = this.ajv.compile(
        JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/')),
      );
      this.validators.set(key, validate);
    }
    if (!validate(body))
      throw new Error(
        `OpenAPI: ${what} does not match the document: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`,
      );
  }
}
