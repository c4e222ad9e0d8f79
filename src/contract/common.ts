/** Schema pieces every resource shares: the error body and times. */
import Type, { type Static, type TArray, type TNull, type TSchema, type TString, type TUnion } from 'typebox';
import { ErrorCode } from '../errors/catalog.js';
import { OWNER_PATTERN } from '../shared/owner.js';

export const TimestampSchema = Type.String({
  format: 'date-time',
  description: 'RFC 3339 UTC with milliseconds',
  examples: ['2026-12-02T10:00:00.000Z'],
});

export const NullableTimestampSchema = Type.Union([TimestampSchema, Type.Null()]);

/** A time a client sends: RFC 3339 with an explicit offset; a time without offset is rejected. */
export const ClientTimeSchema = Type.String({
  maxLength: 64,
  description: 'RFC 3339 time WITH an offset (`Z` or `+08:00`)',
  examples: ['2026-12-02T18:30:00+08:00'],
});

export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(
        Object.values(ErrorCode).map((code) => Type.Literal(code)),
        { description: 'Stable machine code' },
      ),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.String({ description: 'Dotted path of the offending field, or `body`' }),
            reason: Type.String(),
          }),
        ),
      ),
    }),
  },
  {
    $id: 'ErrorBody',
    examples: [
      {
        error: {
          code: 'INVALID_ARGUMENT',
          message: 'executeAt must be an RFC 3339 time with an offset',
          details: [{ field: 'executeAt', reason: 'must be an RFC 3339 time with an offset (Z or +08:00)' }],
        },
      },
    ],
  },
);
export type ErrorBodyType = Static<typeof ErrorBodySchema>;

/** The statuses a resource's routes may answer with the error body. */
export const RESOURCE_ERROR_STATUSES = [400, 401, 403, 404, 409, 413, 429, 500, 503] as const;
type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 429 | 500 | 503;

/**
 * The error part of a route's `response` schema: each status given answers `ErrorBodySchema`. The one
 * place the map is written; a route spreads it beside its success schemas.
 */
export function errorResponses<const S extends readonly ErrorStatus[]>(
  statuses: S = RESOURCE_ERROR_STATUSES as unknown as S,
): { [K in S[number]]: typeof ErrorBodySchema } {
  return Object.fromEntries(statuses.map((status) => [status, ErrorBodySchema])) as {
    [K in S[number]]: typeof ErrorBodySchema;
  };
}

/** Paging of a list: the query's `pageSize` and `pageToken`, and an owner filter for admin keys. */
export function pagingQueryProperties(resources: string) {
  return {
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 })),
    pageToken: Type.Optional(
      Type.String({ maxLength: 4096, description: 'nextPageToken of the previous page' }),
    ),
    owner: Type.Optional(
      Type.String({
        pattern: OWNER_PATTERN,
        description: `Admin keys only: this owner's ${resources} (default for admin: every owner's)`,
      }),
    ),
  };
}

/** A page of a list: its items under `field`, and the token of the next page. */
export function pageSchema<const F extends string, T extends TSchema>(field: F, item: T) {
  return Type.Object({
    [field]: Type.Array(item),
    nextPageToken: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as pageToken for the next page; null on the last',
    }),
  } as { [K in F]: TArray<T> } & { nextPageToken: TUnion<[TString, TNull]> });
}
