/**
 * The package's public names against conformance/vocabulary.json, both ways: every name the file
 * gives TypeScript exists (pending ones excepted), and every export of src/index.ts (types
 * included, read with the compiler's own API) and every public method of the client is listed.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { KNOWN_ERROR_CODES } from '../../src/index.js';

interface Language {
  renamed: Record<string, { names: string[] }>;
  absent: Record<string, string>;
  only: Record<string, string>;
  onlyVerbs: Record<string, string>;
  deprecated: Record<string, string>;
}
interface Vocabulary {
  types: string[];
  verbs: string[];
  functions: string[];
  errorCodes: string[];
  pending: Array<{ kind: string; name: string; landed: string[] }>;
  languages: { typescript: Language };
}

const vocabulary = JSON.parse(
  readFileSync(new URL('../../../../conformance/vocabulary.json', import.meta.url), 'utf8'),
) as Vocabulary;
const lang = vocabulary.languages.typescript;
const pending = new Set(
  vocabulary.pending.filter((p) => !p.landed.includes('typescript')).map((p) => `${p.kind}:${p.name}`),
);
const strip = (o: Record<string, unknown>) => Object.keys(o).filter((k) => k !== '$comment');

/** Canonical names of one kind, spelled as TypeScript spells them, less the absent ones. */
function expected(kind: string, names: string[]): Array<{ name: string; canonical: string }> {
  return names
    .filter((n) => !(n in lang.absent))
    .flatMap((n) => (lang.renamed[n]?.names ?? [n]).map((name) => ({ name, canonical: `${kind}:${n}` })));
}

/** The exported names of src/index.ts and the public methods of DelayedTasksClient. */
function surface(): { exports: Set<string>; verbs: Set<string> } {
  const index = new URL('../../src/index.ts', import.meta.url).pathname;
  const program = ts.createProgram([index], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(index);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error('src/index.ts not found');
  const exported = checker.getExportsOfModule(module);
  const client = exported.find((s) => s.name === 'DelayedTasksClient');
  if (!client) throw new Error('DelayedTasksClient is not exported');
  const instance = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(client));
  const verbs = checker
    .getPropertiesOfType(instance)
    .filter((p) => {
      const declaration = p.valueDeclaration;
      if (!declaration || !ts.isMethodDeclaration(declaration)) return false;
      const modifiers = ts.getCombinedModifierFlags(declaration);
      return (
        (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) === 0 && !p.name.startsWith('#')
      );
    })
    .map((p) => p.name);
  return { exports: new Set(exported.map((s) => s.name)), verbs: new Set(verbs) };
}

const { exports, verbs } = surface();

describe('the TypeScript names against conformance/vocabulary.json', () => {
  it('exports every type and function the vocabulary names (pending ones may be missing)', () => {
    const wanted = [...expected('type', vocabulary.types), ...expected('function', vocabulary.functions)];
    const missing = wanted
      .filter((w) => !exports.has(w.name) && !pending.has(w.canonical))
      .map((w) => w.name);
    expect(missing).toEqual([]);
  });

  it('exports nothing the vocabulary does not list', () => {
    const listed = new Set([
      ...expected('type', vocabulary.types).map((w) => w.name),
      ...expected('function', vocabulary.functions).map((w) => w.name),
      ...strip(lang.only),
      ...strip(lang.deprecated),
    ]);
    expect([...exports].filter((name) => !listed.has(name)).sort()).toEqual([]);
  });

  it("the client's public methods are the vocabulary's verbs, both ways", () => {
    const wanted = expected('verb', vocabulary.verbs);
    const missing = wanted.filter((w) => !verbs.has(w.name) && !pending.has(w.canonical)).map((w) => w.name);
    expect(missing).toEqual([]);
    const listed = new Set([...wanted.map((w) => w.name), ...strip(lang.onlyVerbs)]);
    expect([...verbs].filter((v) => !listed.has(v)).sort()).toEqual([]);
  });

  it('KNOWN_ERROR_CODES are the vocabulary’s codes, both ways', () => {
    const codes = new Set<string>(KNOWN_ERROR_CODES);
    const wanted = expected('errorCode', vocabulary.errorCodes);
    expect(wanted.filter((w) => !codes.has(w.name) && !pending.has(w.canonical)).map((w) => w.name)).toEqual(
      [],
    );
    const listed = new Set(wanted.map((w) => w.name));
    expect([...codes].filter((c) => !listed.has(c))).toEqual([]);
  });

  it('each deprecated alias names a listed type it stands for', () => {
    for (const replacement of strip(lang.deprecated).map((k) => lang.deprecated[k])) {
      expect(vocabulary.types).toContain(replacement);
    }
  });
});
