import { describe, expect, it } from 'vitest';
import { parse, stringify } from '../../src/json.js';

describe('parse', () => {
  it.each([
    {
      text: '{"a":1,"b":[true,false,null],"c":"x\\u00e9\\n"}',
      value: { a: 1, b: [true, false, null], c: 'xé\n' },
    },
    { text: ' [ -0.5 , 1e3, 2E-2 ] ', value: [-0.5, 1000, 0.02] },
    { text: '9007199254740991', value: 9007199254740991 },
    { text: '9007199254740992', value: 9007199254740992n },
    { text: '{"id":-12345678901234567890}', value: { id: -12345678901234567890n } },
    { text: '1.5e300', value: 1.5e300 },
    { text: '{}', value: {} },
  ])('$text', ({ text, value }) => {
    expect(parse(text)).toEqual(value);
  });

  it.each(['', '{', '[1,]', '{"a" 1}', '01', '"\u0001"', 'nul', '{} x', "{'a':1}"])('refuses %j', (text) => {
    expect(() => parse(text)).toThrow(SyntaxError);
  });

  it('keeps __proto__ as a plain key', () => {
    const value = parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('stringify', () => {
  it('writes safe bigints as numbers', () => {
    expect(stringify({ a: 9007199254740991n, b: [1n] })).toBe('{"a":9007199254740991,"b":[1]}');
  });
});
