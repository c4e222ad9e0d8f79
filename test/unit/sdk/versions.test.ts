/**
 * The four SDKs are released together, so they carry one version: each place that states it (the
 * package manifests, the constants the user agents are built from, the install lines of the READMEs
 * and docs/sdks.md) says the same. A bump that forgets one fails here, naming it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
const first = (path: string, pattern: RegExp) => pattern.exec(read(path))?.[1];

const STATED: [string, RegExp][] = [
  ['sdk/typescript/package.json', /"version": "([^"]+)"/],
  ['sdk/typescript/src/version.ts', /SDK_VERSION = '([^']+)'/],
  ['sdk/go/client.go', /const Version = "([^"]+)"/],
  ['sdk/go/README.md', /sdk\/go@v(\d+\.\d+\.\d+)/],
  ['sdk/python/src/delayed_tasks/_version.py', /__version__ = "([^"]+)"/],
  ['sdk/java/pom.xml', /<artifactId>delayed-tasks-parent<\/artifactId>\s*<version>([^<]+)<\/version>/],
  ['sdk/java/delayed-tasks-client/src/main/java/dev/delayedtasks/client/Version.java', /VERSION = "([^"]+)"/],
  ['sdk/java/README.md', /<artifactId>delayed-tasks-client<\/artifactId>\s*<version>([^<]+)<\/version>/],
  ['sdk/typescript/README.md', /delayed-tasks-sdk-(\d+\.\d+\.\d+)\.tgz/],
  ['sdk/python/README.md', /delayed_tasks-(\d+\.\d+\.\d+)-py3/],
  ['docs/sdks.md', /sdk\/go@v(\d+\.\d+\.\d+)/],
  ['docs/sdks.md', /delayed_tasks-(\d+\.\d+\.\d+)-py3/],
  ['docs/sdks.md', /delayed-tasks-sdk-(\d+\.\d+\.\d+)\.tgz/],
];

describe('SDK versions', () => {
  const version = first('sdk/typescript/package.json', /"version": "([^"]+)"/);

  it.each(STATED)('%s states the same version as the TypeScript package', (path, pattern) => {
    expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(first(path, pattern)).toBe(version);
  });
});
