/**
 * The Helm chart (deploy/helm/delayed-tasks) against the service it deploys: the variables it sets
 * are ones the service reads, and the copy of the search-attribute script its hook Job runs is the
 * one docker-compose.yml runs. Rendering and strict decoding are scripts/chart-check.sh's (CI).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/environment.js';
import { isRecord, readRepoJson, readRepoText, repoPath } from './support.js';

const CHART = 'deploy/helm/delayed-tasks';

/** Every environment variable loadConfig looks at, recorded from its reads (TLS on: its keys are read only then). */
function variablesTheServiceReads(): Set<string> {
  const read = new Set<string>();
  const given: Record<string, string> = { TEMPORAL_TLS: 'true' };
  const env = new Proxy<Record<string, string | undefined>>(
    {},
    {
      get: (_target, key) => {
        if (typeof key !== 'string') return undefined;
        read.add(key);
        return given[key];
      },
    },
  );
  loadConfig(env);
  return read;
}

/** Names in the service's style (FOO_BAR) written in a template, plus HOST and PORT. */
function variablesIn(template: string): string[] {
  const text = readRepoText(`${CHART}/templates/${template}`);
  const names = text.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b(?:HOST|PORT)\b/g) ?? [];
  return [...new Set(names)].sort();
}

describe('the Helm chart', () => {
  const reads = variablesTheServiceReads();

  it('sets only variables the service reads, in both processes', () => {
    expect(reads.has('TEMPORAL_ADDRESS')).toBe(true); // the recording works
    for (const template of ['_pod.tpl', 'configmap.yaml']) {
      const names = variablesIn(template);
      expect(names.length).toBeGreaterThan(5);
      expect(names.filter((name) => !reads.has(name))).toEqual([]);
      // Read, but only to say at boot that it is no longer read (an empty value keeps every default).
      expect(loadConfig(Object.fromEntries(names.map((name) => [name, '']))).retired).toEqual([]);
    }
  });

  it('takes in `config` only variables the service reads and the chart does not set itself', () => {
    const schema = readRepoJson(`${CHART}/values.schema.json`);
    const config = isRecord(schema) && isRecord(schema.properties) ? schema.properties.config : undefined;
    const names =
      isRecord(config) && isRecord(config.propertyNames) ? (config.propertyNames.enum as string[]) : [];
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((name) => !reads.has(name))).toEqual([]);
    const setByChart = new Set([...variablesIn('_pod.tpl'), ...variablesIn('configmap.yaml')]);
    expect(names.filter((name) => setByChart.has(name))).toEqual([]);
  });

  it('runs the same search-attribute script as docker-compose.yml in its hook Job', () => {
    expect(
      readRepoText(`${CHART}/files/register-search-attributes.sh`),
      `${CHART}/files/register-search-attributes.sh must be a copy of deploy/temporal/register-search-attributes.sh`,
    ).toBe(readRepoText('deploy/temporal/register-search-attributes.sh'));
  });

  it('ships values files whose broken twins say how they must be refused', () => {
    const broken = readdirSync(repoPath('deploy/helm/tests/broken')).filter((name) => name.endsWith('.yaml'));
    expect(broken.length).toBeGreaterThan(3);
    for (const name of broken) {
      const text = readRepoText(`deploy/helm/tests/broken/${name}`);
      expect(text, name).toMatch(/^# refused-by: (schema|render|decoder)$/m);
      expect(text, name).toMatch(/^# refused-with: \S/m);
    }
  });
});
