/**
 * Reads a history in the JSON that `temporal workflow show -o json` prints.
 *
 * The SDK's own `historyFromJSON` (which `Worker.runReplayHistory` calls for JSON input) fails in this
 * install with "type must be a Type": npm gives @temporalio/common and @temporalio/proto separate
 * copies of protobufjs 8 (the top level holds gRPC's protobufjs 7), and common's JSON reader rejects
 * the message types of proto's copy. Reading with the protobufjs that @temporalio/proto itself loads
 * gives the same History object.
 */
import { createRequire } from 'node:module';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.History;
interface Protojson {
  fromJson(type: unknown, json: unknown, options: { ignoreUnknownFields: boolean }): unknown;
}
interface PatchedRoot {
  lookupType(name: string): unknown;
}

const fromProto = createRequire(createRequire(import.meta.url).resolve('@temporalio/proto'));
const { fromJson } = fromProto('protobufjs/ext/protojson') as Protojson;
const root = fromProto('./root') as PatchedRoot;
const historyType = root.lookupType('temporal.api.history.v1.History');

export function historyFromCliJson(json: unknown): History {
  const history = fromJson(historyType, json, { ignoreUnknownFields: true });
  if (!history) throw new TypeError('not a history');
  return history as History;
}
