/**
 * The API documentation is generated from the routes' own schemas: every registered route is in
 * it, every documented example validates against its schema, and /docs renders.
 */
import { readFileSync } from 'node:fs';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiConnection } from '../../../src/temporal/connection.js';
import { buildApp } from '../../../src/api/app.js';
import { ErrorCode } from '../../../src/errors/catalog.js';
import { ApiMetrics } from '../../../src/api/metrics.js';
import { TaskService } from '../../../src/tasks/service.js';
import { loadConfig } from '../../../src/config/environment.js';
import { Policies } from '../../../src/task-types/policies.js';
import { createAjv } from '../../../src/validation/json-schema.js';

let app: FastifyInstance;
let connection: Connection;

beforeAll(async () => {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
  connection = apiConnection(config.temporal);
  const tasks = new TaskService({ connection, config, policies: new Policies() });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  app = await buildApp({ config, tasks, metrics });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await connection?.close().catch(() => undefined);
});

interface OpenApi {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId?: string;
        requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
        responses: Record<string, { content?: Record<string, { schema: object; example?: unknown }> }>;
      }
    >
  >;
  info: { description: string };
  components?: { schemas?: Record<string, object> };
}

/**
 * "METHOD /path" of every route in Fastify's printed route tree, HEAD left out (Fastify adds it to
 * every GET). Each line is a path segment under the line above it, four columns deeper.
 */
function routeTable(tree: string): string[] {
  const parents: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+) \(([A-Z, ]+)\)$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    const path = `${parents[depth - 1] ?? ''}${match[2] ?? ''}`;
    parents[depth] = path;
    parents.length = depth + 1;
    for (const method of (match[3] ?? '').split(', '))
      if (method !== 'HEAD') routes.push(`${method} ${path}`);
  }
  return routes.sort();
}

/** The code appears as a word of its own: `NOT_FOUND` is not a mention inside `TASK_NOT_FOUND`. */
function mentionsCode(text: string, code: string): boolean {
  return new RegExp(`(?<![A-Z0-9_])${code}(?![A-Z0-9_])`).test(text);
}

async function spec(): Promise<OpenApi> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json() as OpenApi;
}

describe('OpenAPI document', () => {
  it('reads the route table', () => {
    const tree = [
      '├── /healthz (GET, HEAD)',
      '├── /api/v1/tasks (POST, GET, HEAD)',
      '│   ├── /replay (POST)',
      '│   └── /:taskId (GET, HEAD)',
      '│       └── /cancel (POST)',
      '└── /docs (GET, HEAD)',
      '    └── / (GET, HEAD)',
      '        └── json (GET, HEAD)',
    ].join('\n');
    expect(routeTable(tree)).toEqual([
      'GET /api/v1/tasks',
      'GET /api/v1/tasks/:taskId',
      'GET /docs',
      'GET /docs/',
      'GET /docs/json',
      'GET /healthz',
      'POST /api/v1/tasks',
      'POST /api/v1/tasks/:taskId/cancel',
      'POST /api/v1/tasks/replay',
    ]);
  });

  it('documents exactly the routes the app serves, each with an operationId', async () => {
    const doc = await spec();
    // The docs UI and the document itself are served but not documented.
    const served = routeTable(app.printRoutes({ commonPrefix: false })).filter(
      (route) => !/^\w+ \/(docs|openapi\.json)/.test(route) && !route.startsWith('OPTIONS '),
    );
    const documented = Object.entries(doc.paths)
      .flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
      )
      .sort();
    expect(documented).toEqual(served);
    expect(served).toEqual(
      expect.arrayContaining([
        'POST /api/v1/tasks',
        'GET /api/v1/tasks',
        'GET /api/v1/tasks/:taskId',
        'POST /api/v1/tasks/:taskId/cancel',
        'POST /api/v1/tasks/:taskId/reschedule',
        'POST /api/v1/tasks/:taskId/replay',
        'POST /api/v1/tasks/replay',
        'POST /api/v1/tasks/cancel',
        'GET /api/v1/batches/:jobId',
        'GET /api/v1/task-types',
        'GET /api/v1/task-types/:type/schemas/:version',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
      ]),
    );
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(operation.operationId, `${method} ${path}`).toEqual(expect.any(String));
      }
    }
  });

  it('declares the bearer scheme, and on every /api/v1 route its scope; health routes are open', async () => {
    const doc = (await spec()) as OpenApi & {
      components: { securitySchemes: Record<string, { type: string; scheme: string }> };
    };
    expect(doc.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    const scopes: Record<string, string> = {
      'post /api/v1/tasks': 'tasks:write',
      'post /api/v1/tasks/batch': 'tasks:write',
      'post /api/v1/leases': 'tasks:lease',
      'post /api/v1/leases/ack': 'tasks:lease',
      'post /api/v1/leases/nack': 'tasks:lease',
      'post /api/v1/leases/extend': 'tasks:lease',
      'post /api/v1/leases/release': 'tasks:lease',
      'get /api/v1/tasks': 'tasks:read',
      'get /api/v1/tasks/{taskId}': 'tasks:read',
      'post /api/v1/tasks/{taskId}/cancel': 'tasks:write',
      'post /api/v1/tasks/{taskId}/reschedule': 'tasks:write',
      'post /api/v1/tasks/{taskId}/replay': 'tasks:write',
      'post /api/v1/tasks/replay': 'admin',
      'post /api/v1/tasks/cancel': 'admin',
      'get /api/v1/batches/{jobId}': 'admin',
      'get /api/v1/task-types': 'tasks:read',
      'get /api/v1/task-types/{type}/schemas/{version}': 'tasks:read',
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const op = operation as { security?: unknown; 'x-scopes'?: string[]; description?: string };
        const scope = scopes[`${method} ${path}`];
        if (path.startsWith('/api/v1/')) {
          expect(scope, `${method} ${path} has a scope in this test`).toBeDefined();
          expect(op.security).toEqual([{ apiKey: [] }]);
          expect(op['x-scopes']).toEqual([scope]);
          expect(op.description?.match(/\*\*Scope:\*\*/g)).toHaveLength(1);
          expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403']));
        } else {
          expect(op.security, path).toEqual([]);
        }
      }
    }
  });

  it("keeps no pasted key in localStorage on the console's origin, and cannot be framed or run foreign script", async () => {
    const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain('"persistAuthorization":false');
    // So a reload forgets the key, and the manual says so (it once said the key survived a reload).
    const manual = readFileSync('docs/api.md', 'utf8').replace(/\s+/g, ' ');
    expect(manual).toContain('a reload forgets it');
    expect(manual).not.toMatch(/survives a reload/);
    for (const url of ['/docs', '/docs/static/index.html']) {
      const page = await app.inject({ method: 'GET', url });
      const csp = String(page.headers['content-security-policy']);
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(csp, url).toMatch(/script-src 'self'/);
      expect(csp, url).not.toMatch(/https:|validator\.swagger\.io|unsafe-inline/);
      expect(page.headers['x-frame-options'], url).toBe('DENY');
    }
  });

  it('names every error code, each as a word of its own', async () => {
    const doc = await spec();
    const manual = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    expect(mentionsCode('TASK_NOT_FOUND (404)', 'NOT_FOUND')).toBe(false);
    expect(mentionsCode('`NOT_FOUND` (404)', 'NOT_FOUND')).toBe(true);
    for (const code of Object.values(ErrorCode)) {
      expect(mentionsCode(doc.info.description, code), `${code} in the OpenAPI description`).toBe(true);
      expect(mentionsCode(manual, code), `${code} in docs/api.md`).toBe(true);
    }
  });

  it('has examples that validate against their own schemas', async () => {
    const doc = await spec();
    const ajv = createAjv();
    let checked = 0;
    const strip = (schema: unknown) =>
      JSON.parse(JSON.stringify(schema, (k, v) => (k === 'example' || k === 'examples' ? undefined : v)));
    const check = (schema: unknown, example: unknown, where: string) => {
      const validate = ajv.compile(strip(schema));
      checked++;
      expect(
        validate(example),
        `${where}: ${JSON.stringify(example)} ${ajv.errorsText(validate.errors)}`,
      ).toBe(true);
    };
    // The generator turns each schema's `examples` into an OpenAPI `example`, on schemas and media.
    const visit = (schema: unknown, where: string) => {
      if (!schema || typeof schema !== 'object') return;
      const node = schema as {
        example?: unknown;
        properties?: Record<string, unknown>;
        items?: unknown;
        anyOf?: unknown[];
      };
      if ('example' in node) check(node, node.example, where);
      for (const [key, child] of Object.entries(node.properties ?? {})) visit(child, `${where}.${key}`);
      visit(node.items, `${where}[]`);
      for (const child of node.anyOf ?? []) visit(child, `${where}|`);
    };
    const media = (
      content: Record<string, { schema: object; example?: unknown }> | undefined,
      where: string,
    ) => {
      for (const entry of Object.values(content ?? {})) {
        if ('example' in entry) check(entry.schema, entry.example, where);
        visit(entry.schema, where);
      }
    };
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        media(operation.requestBody?.content, `${method} ${path} body`);
        for (const [status, response] of Object.entries(operation.responses))
          media(response.content, `${method} ${path} ${status}`);
      }
    }
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) visit(schema, name);
    expect(checked).toBeGreaterThan(10);
  });

  it('serves the interactive page at /docs', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('swagger');
    const bundle = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    expect(bundle.statusCode).toBe(200);
    expect(bundle.body.length).toBeGreaterThan(100_000);
  });
});
