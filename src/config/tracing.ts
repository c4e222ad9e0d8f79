/**
 * The OpenTelemetry specification's `OTEL_*` variables, read for src/config/environment.ts (the only
 * reader of the environment), which calls `readTracing` with its reader and problem list.
 */
import type { EnvReader } from './env-reader.js';

/** What the standard `OTEL_*` variables ask for; read here so that no other module reads them. */
export interface TracingConfig {
  /**
   * Spans are made and exported: `OTEL_TRACES_EXPORTER` is `otlp` or `console`, or it is unset and an
   * OTLP endpoint is set; `OTEL_SDK_DISABLED=true` turns it off whatever else is set. @defaultValue false
   */
  enabled: boolean;
  /** @defaultValue `otlp` */
  exporter: 'otlp' | 'console';
  /** `service.name` of the spans. @defaultValue `delayed-task-api` or `delayed-task-worker` */
  serviceName: string | undefined;
  /** @defaultValue `http/protobuf` */
  protocol: OtlpProtocol;
  /** Where spans go: the traces endpoint, or the base endpoint + `/v1/traces` over HTTP. */
  endpoint: string;
  /** Sent with every export (an API key of a hosted backend): never logged. */
  headers: Readonly<Record<string, string>>;
  /** `OTEL_RESOURCE_ATTRIBUTES`: `key=value,...` added to every span's resource. */
  resourceAttributes: Readonly<Record<string, string>>;
  /** @defaultValue `parentbased_always_on` */
  sampler: TraceSampler;
  /** Ratio of the `traceidratio` samplers. @defaultValue 1 */
  samplerRatio: number;
}

export type OtlpProtocol = 'http/protobuf' | 'grpc';
const OTLP_PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'grpc'];
export type TraceSampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';
const TRACE_SAMPLERS: readonly TraceSampler[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** Settings an earlier version read, and what replaced them. */
/** The OpenTelemetry specification's variables, with tracing off unless an exporter or endpoint is named. */
export function readTracing(read: EnvReader, problems: string[]): TracingConfig {
  const disabled = read.bool('OTEL_SDK_DISABLED', false);
  const exporter = read.oneOf('OTEL_TRACES_EXPORTER', 'unset', ['unset', 'otlp', 'console', 'none']);
  const protocol = read.oneOf(
    'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
    read.oneOf('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf', OTLP_PROTOCOLS),
    OTLP_PROTOCOLS,
  );
  const url = /^(|https?:\/\/\S+)$/;
  const tracesEndpoint = read.string('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', '', url, 'an http(s) URL');
  const baseEndpoint = read.string('OTEL_EXPORTER_OTLP_ENDPOINT', '', url, 'an http(s) URL');
  const endpoint =
    tracesEndpoint ||
    (baseEndpoint && protocol === 'http/protobuf'
      ? `${baseEndpoint.replace(/\/+$/, '')}/v1/traces`
      : baseEndpoint) ||
    (protocol === 'grpc' ? 'http://localhost:4317' : 'http://localhost:4318/v1/traces');
  const pairs = (key: string, text: string | undefined): Record<string, string> => {
    const parsed = parseKeyValues(text ?? '');
    // Export headers carry credentials: the message names the key, never the value.
    if (parsed === undefined) problems.push(`${key} is not a list of key=value pairs`);
    return parsed ?? {};
  };
  const ratio = read.optionalString('OTEL_TRACES_SAMPLER_ARG') ?? '1';
  const samplerRatio = Number(ratio);
  if (!/^\d*\.?\d+$/.test(ratio) || samplerRatio > 1) {
    problems.push(`OTEL_TRACES_SAMPLER_ARG=${JSON.stringify(ratio)} is not a ratio from 0 to 1`);
  }
  return {
    enabled:
      !disabled &&
      (exporter === 'otlp' ||
        exporter === 'console' ||
        (exporter === 'unset' && (tracesEndpoint !== '' || baseEndpoint !== ''))),
    exporter: exporter === 'console' ? 'console' : 'otlp',
    serviceName: read.optionalString('OTEL_SERVICE_NAME'),
    protocol,
    endpoint,
    headers: {
      ...pairs('OTEL_EXPORTER_OTLP_HEADERS', read.optionalString('OTEL_EXPORTER_OTLP_HEADERS')),
      ...pairs('OTEL_EXPORTER_OTLP_TRACES_HEADERS', read.optionalString('OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    resourceAttributes: pairs('OTEL_RESOURCE_ATTRIBUTES', read.optionalString('OTEL_RESOURCE_ATTRIBUTES')),
    sampler: read.oneOf('OTEL_TRACES_SAMPLER', 'parentbased_always_on', TRACE_SAMPLERS),
    samplerRatio: Number.isFinite(samplerRatio) && samplerRatio <= 1 ? samplerRatio : 1,
  };
}

/** `k1=v1,k2=v2` with percent-encoded values (the W3C Baggage form the OTel variables use). */
function parseKeyValues(text: string): Record<string, string> | undefined {
  const result: Record<string, string> = {};
  for (const item of text.split(',')) {
    if (item.trim() === '') continue;
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    if (at <= 0 || key === '') return undefined;
    try {
      result[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      return undefined;
    }
  }
  return result;
}
