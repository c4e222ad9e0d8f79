/**
 * JSON both ways without losing integers: `stringify` writes `bigint` as a number (only safe ones
 * reach it; see checks.ts), `parse` returns a `bigint` for an integer beyond ±(2^53-1) where
 * `JSON.parse` would round it (Node 20 has no `JSON.parse` source access).
 */

export function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? Number(item) : item));
}

/** Like `JSON.parse`, but unsafe integers come back as `bigint`. Throws SyntaxError. */
export function parse(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${at} of JSON`);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  };
  const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
  // eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters
  const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

  const value = (): unknown => {
    space();
    const char = text[at];
    if (char === '{') {
      at++;
      const object: Record<string, unknown> = {};
      space();
      if (text[at] === '}') return (at++, object);
      for (;;) {
        space();
        if (text[at] !== '"') fail('expected a string key');
        const key = value() as string;
        space();
        if (text[at++] !== ':') fail('expected ":"');
        Object.defineProperty(object, key, {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        space();
        const next = text[at++];
        if (next === '}') return object;
        if (next !== ',') fail('expected "," or "}"');
      }
    }
    if (char === '[') {
      at++;
      const array: unknown[] = [];
      space();
      if (text[at] === ']') return (at++, array);
      for (;;) {
        array.push(value());
        space();
        const next = text[at++];
        if (next === ']') return array;
        if (next !== ',') fail('expected "," or "]"');
      }
    }
    if (char === '"') {
      STRING.lastIndex = at;
      const match = STRING.exec(text) ?? fail('bad string');
      at = STRING.lastIndex;
      return JSON.parse(match[0]) as string;
    }
    for (const [word, result] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, at)) return ((at += word.length), result);
    }
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text) ?? fail('unexpected token');
    at = NUMBER.lastIndex;
    const number = Number(match[0]);
    const integral = match[1] === undefined && match[2] === undefined;
    return integral && !Number.isSafeInteger(number) ? BigInt(match[0]) : number;
  };

  const result = value();
  space();
  if (at !== text.length) fail('unexpected data after the value');
  return result;
}
