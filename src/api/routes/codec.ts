/**
 * The codec endpoint (Temporal's remote codec protocol) so that operators read encrypted tasks in
 * the Web UI and the CLI (`--codec-endpoint http://<api>/codec`): `POST /codec/encode` and
 * `POST /codec/decode` take and answer `{"payloads": [{"metadata": {k: base64}, "data": base64}]}`.
 *
 * Who may call it: `Authorization: Bearer <CODEC_AUTH_TOKEN>`, or an API key with scope `codec` (or
 * `admin`): it decrypts every owner's payloads, so no task scope is enough. With neither a token nor
 * API keys configured, only clients on loopback (the local Web UI and CLI, `scripts/dev.sh`); with
 * either, a credential is needed even from loopback (a proxy on the same host looks like loopback).
 * Browsers reach it from the origins in `CODEC_CORS_ORIGINS` (the Web UI's).
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Payload, PayloadCodec } from '@temporalio/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import Type, { type Static } from 'typebox';
import type { KeyStore } from '../../auth/key-store.js';
import { ApiError, ErrorCode } from '../../errors/catalog.js';
import { errorResponses } from '../../contract/common.js';

const Base64 = Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$', description: 'base64' });
const PayloadSchema = Type.Object({
  metadata: Type.Optional(Type.Record(Type.String(), Base64)),
  data: Type.Optional(Base64),
});
const Payloads = Type.Array(PayloadSchema, { maxItems: 10_000 });
export const CodecBodySchema = Type.Object({ payloads: Payloads });
/**
 * What the Web UI and the CLI send: proto3 JSON leaves an empty list out, so `{}` is the encoding
 * of no payloads (a query or signal without arguments) and must answer `{"payloads": []}`.
 */
const CodecRequestSchema = Type.Object({ payloads: Type.Optional(Payloads) });
type CodecBody = Static<typeof CodecBodySchema>;

export interface CodecRoutesOptions {
  codec: PayloadCodec;
  /** Bearer token a caller may send; undefined (and no keys): loopback callers only. */
  authToken: string | undefined;
  /** API keys: one with scope `codec` or `admin` may call the endpoint. */
  keys?: KeyStore | undefined;
  /** Browser origins allowed (the Web UI). */
  corsOrigins: readonly string[];
}

/** A decode request may carry many payloads of the largest size. */
const CODEC_BODY_LIMIT = 16 * 1024 * 1024;
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

export const codecRoutes: FastifyPluginAsyncTypebox<CodecRoutesOptions> = async (app, options) => {
  const { codec, authToken, corsOrigins, keys } = options;
  const expected = authToken ? digest(authToken) : undefined;

  const cors = (request: FastifyRequest, reply: FastifyReply) => {
    const origin = request.headers.origin;
    if (origin && corsOrigins.includes(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
      reply.header('vary', 'Origin');
    }
  };

  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    cors(request, reply);
    const authorization = request.headers.authorization;
    // The token and the keys are guessed here as on the API: failures count against the same limits.
    if (expected) {
      const match = /^Bearer (.+)$/i.exec(authorization ?? '');
      if (match && timingSafeEqual(digest(match[1]!), expected)) {
        request.audit.credential = 'CODEC_AUTH_TOKEN';
        return;
      }
    }
    // An API key: the API's own check (failures counted, the key's rate limit, scope codec).
    if (keys && (await app.authenticateKey(request, reply, 'codec'))) {
      request.audit.credential = 'API key';
      return;
    }
    if (expected || keys) {
      if (!keys) {
        request.audit.authFailure = authorization ? 'unknown' : 'missing';
        await app.authFailures.count(request, reply); // with keys, counted by the key check
      }
      const accepted = [
        ...(expected ? ['CODEC_AUTH_TOKEN'] : []),
        ...(keys ? ['an API key with scope codec or admin'] : []),
      ];
      throw new ApiError(
        ErrorCode.Unauthenticated,
        `the codec endpoint needs Authorization: Bearer <${accepted.join(' or ')}>`,
      );
    }
    if (!LOOPBACK.test(request.socket.remoteAddress ?? '')) {
      throw new ApiError(
        ErrorCode.PermissionDenied,
        'the codec endpoint answers loopback clients only unless CODEC_AUTH_TOKEN is set',
      );
    }
    request.audit.credential = 'loopback';
  };

  for (const action of ['encode', 'decode'] as const) {
    const url = `/codec/${action}`;
    // Preflight: browsers send it without credentials.
    app.options(url, { schema: { hide: true } }, async (request, reply) => {
      cors(request, reply);
      reply.header('access-control-allow-methods', 'POST, OPTIONS');
      reply.header('access-control-allow-headers', 'content-type, x-namespace, authorization');
      reply.header('access-control-max-age', '600');
      return reply.code(204).send();
    });
    app.post(
      url,
      {
        bodyLimit: CODEC_BODY_LIMIT,
        onRequest: authenticate,
        // It decrypts every owner's payloads: each call, served or refused, has its audit line.
        config: { audited: true },
        schema: {
          operationId: `codec${action === 'encode' ? 'Encode' : 'Decode'}`,
          tags: ['operations'],
          summary: `${action === 'encode' ? 'Encrypt' : 'Decrypt'} Temporal payloads (remote codec for the Web UI and CLI)`,
          body: CodecRequestSchema,
          response: {
            200: CodecBodySchema,
            ...errorResponses([400, 401, 403]),
          },
        },
      },
      async (request) => {
        const payloads = (request.body.payloads ?? []).map(fromJson);
        request.audit.items = payloads.length;
        try {
          const result = action === 'encode' ? await codec.encode(payloads) : await codec.decode(payloads);
          return { payloads: result.map(toJson) };
        } catch (err) {
          throw new ApiError(ErrorCode.InvalidArgument, (err as Error).message);
        }
      },
    );
  }
};

function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

function fromJson(payload: CodecBody['payloads'][number]): Payload {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    ),
    data: Buffer.from(payload.data ?? '', 'base64'),
  };
}

function toJson(payload: Payload): CodecBody['payloads'][number] {
  return {
    metadata: Object.fromEntries(
      Object.entries(payload.metadata ?? {}).map(([key, value]) => [
        key,
        Buffer.from(value ?? []).toString('base64'),
      ]),
    ),
    data: Buffer.from(payload.data ?? []).toString('base64'),
  };
}
