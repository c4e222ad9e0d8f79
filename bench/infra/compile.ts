/**
 * Compiles the benchmark's own child-process entry points (receiver, BullMQ worker, setTimeout floor)
 * to plain JavaScript, so they run on bare `node` like the service's dist/ does: no TypeScript loader
 * in their memory or start-up time.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * Transpiles `entries` and the bench files they import (relative `./x.js` specifiers) into `outDir`,
 * keeping their paths relative to `root`. Returns the compiled path of each entry.
 */
export function compileEntries(root: string, entries: readonly string[], outDir: string): string[] {
  const seen = new Set<string>();
  const pending = entries.map((entry) => resolve(root, entry));
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      fileName: file,
      compilerOptions: {
        module: ts.ModuleKind.ES2022,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
    });
    const out = join(outDir, relative(root, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, outputText);
    // Type-only imports vanish from the output: no need to compile what they name.
    for (const [, specifier] of source.matchAll(/^import (?!type )[^;]*? from '(\.\.?\/[^']+)\.js';/gms)) {
      pending.push(resolve(dirname(file), `${specifier}.ts`));
    }
  }
  return entries.map((entry) => join(outDir, entry).replace(/\.ts$/, '.js'));
}
