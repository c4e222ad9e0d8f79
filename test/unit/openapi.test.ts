/**
 * The API documentation is generated from the routes' own schemas: every registered route is in
 * it, every documented example validates against its schema, and /docs renders.
 */
import { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/api/app.js';
import { ErrorCode } from '../../src/api/errors.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/api/task-service.js';
import { loadConfig } from '../../src/config.js';
import { Policies } from '../../src/policies.js';
import { createAjv } from '../../src/validation.js';

let app: FastifyInstance;
let connection: Connection;

beforeAll(async () => {
  const config = loadConfig({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
  connection = Connection.lazy({ address: config.temporal.address });
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

async function spec(): Promise<OpenApi> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json() as OpenApi;
}

describe('OpenAPI document', () => {
  it('documents every registered route', async () => {
    const doc = await spec();
    const table = app.printRoutes({ commonPrefix: false, method: undefined, includeHooks: false });
    const registered = [
      '/api/v1/tasks',
      '/api/v1/tasks/:taskId',
      '/api/v1/tasks/:taskId/cancel',
      '/api/v1/tasks/:taskId/reschedule',
      '/api/v1/tasks/:taskId/replay',
      '/api/v1/tasks/replay',
      '/api/v1/tasks/cancel',
      '/api/v1/batches/:jobId',
      '/healthz',
      '/readyz',
      '/metrics',
    ];
    for (const url of registered) expect(table).toContain(url.split('/').pop());
    const documented = Object.keys(doc.paths);
    for (const url of registered) expect(documented).toContain(url.replace(/:(\w+)/g, '{$1}'));
    // And nothing documented that is not served (the docs UI itself is hidden).
    for (const path of documented)
      expect(path.startsWith('/api/v1/') || ['/healthz', '/readyz', '/metrics'].includes(path)).toBe(true);
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
      'get /api/v1/tasks': 'tasks:read',
      'get /api/v1/tasks/{taskId}': 'tasks:read',
      'post /api/v1/tasks/{taskId}/cancel': 'tasks:write',
      'post /api/v1/tasks/{taskId}/reschedule': 'tasks:write',
      'post /api/v1/tasks/{taskId}/replay': 'tasks:write',
      'post /api/v1/tasks/replay': 'admin',
      'post /api/v1/tasks/cancel': 'admin',
      'get /api/v1/batches/{jobId}': 'admin',
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

  it('lets /docs keep a pasted key (persistAuthorization)', async () => {
    const init = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.body).toContain('"persistAuthorization":true');
  });

  it('names every error code', async () => {
    const doc = await spec();
    for (const code of Object.values(ErrorCode)) expect(doc.info.description).toContain(code);
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
