import { escapeCommas, setArgs } from '../../src/build/index.js';

describe('setArgs', () => {
  it.each([
    ['an integer', { k: 3 }, ['--set', 'k=3']],
    ['a negative integer', { k: -3 }, ['--set', 'k=-3']],
    ['true', { k: 'true' }, ['--set', 'k=true']],
    ['false in capitals', { k: 'FALSE' }, ['--set', 'k=FALSE']],
    ['null', { k: 'null' }, ['--set', 'k=null']],
    ['a string', { k: 'hello' }, ['--set-string', 'k=hello']],
    ['a number written as a string', { k: '42' }, ['--set-string', 'k=42']],
    ['an empty string', { k: '' }, ['--set-string', 'k=']],
    ['a dotted key', { 'ui.message': 'hi' }, ['--set-string', 'ui.message=hi']],
    ['a list of commas', { k: 'a,b,c' }, ['--set-string', 'k=a\\,b\\,c']],
    ['nothing', undefined, []],
  ])('passes %s', (_, set, expected) => {
    expect(setArgs(set)).toEqual(expected);
  });

  it('sorts keys', () => {
    expect(setArgs({ b: 1, a: 2, c: 3 }).filter((_, i) => i % 2 === 1)).toEqual(['a=2', 'b=1', 'c=3']);
  });
});

describe('escapeCommas', () => {
  it.each([
    ['a,b', 'a\\,b'],
    ['a\\,b', 'a\\,b'],
    ['a\\\\,b', 'a\\\\\\,b'],
    ['a\\\\\\,b', 'a\\\\\\,b'],
    [',', '\\,'],
    ['no commas', 'no commas'],
    ['back\\slash', 'back\\slash'],
  ])('escapes %j as %j', (input, output) => {
    expect(escapeCommas(input)).toBe(output);
  });
});
