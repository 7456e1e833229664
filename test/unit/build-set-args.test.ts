import { setEntries, setStringText } from '../../src/build/index.js';

describe('setEntries', () => {
  it.each([
    ['an integer', { k: 3 }, ['--set', 'k=3']],
    ['a negative integer', { k: -3 }, ['--set', 'k=-3']],
    ['true', { k: 'true' }, ['--set', 'k=true']],
    ['false in capitals', { k: 'FALSE' }, ['--set', 'k=FALSE']],
    ['null', { k: 'null' }, ['--set', 'k=null']],
    ['nothing', undefined, []],
  ])('passes %s with --set, in the args (k3s typing)', (_, set, expected) => {
    expect(setEntries(set)).toEqual({ args: expected, files: [] });
  });

  it.each([
    ['a string', 'k', 'hello', 'hello'],
    ['a number written as a string', 'k', '42', '42'],
    ['a decimal', 'k', '1.10', '1.10'],
    ['an empty string', 'k', '', ''],
    ['commas, unescaped', 'k', 'a,b,c', 'a,b,c'],
    ['a comma its writer escaped for helm', 'k', 'a\\,b', 'a,b'],
    ['an escaped backslash', 'k', 'a\\\\b', 'a\\b'],
    ['a lone backslash, which escapes the next character', 'k', 'C:\\path', 'C:path'],
    ['a last lone backslash, which helm drops', 'k', 'end\\', 'end'],
    ['a dotted key', 'ui.message', 'hi', 'hi'],
    ['a key with an index', 'list[0].name', 'first', 'first'],
    ['a key with an escaped dot', 'annotations.example\\.com/x', 'v', 'v'],
    ['a key with an escaped comma', 'a\\,b', 'v', 'v'],
  ])('passes %s as --set-file, the value only in the values Secret', (_, key, value, text) => {
    const { args, files } = setEntries({ [key]: value });
    expect(args).toEqual(['--set-file', `${key}=values/set-001`]);
    expect(files).toEqual([{ key: 'set-001', path: 'values/set-001', content: text }]);
  });

  it('keeps the value out of the args even where it looks like a flag', () => {
    const { args } = setEntries({ a: 'secret-canary', b: '--set x=1' });
    expect(args).toEqual(['--set-file', 'a=values/set-001', '--set-file', 'b=values/set-002']);
  });

  it('sorts keys and numbers only the string entries', () => {
    const { args, files } = setEntries({ z: 'last', b: 1, a: 'first', m: 'true' });
    expect(args).toEqual([
      '--set-file',
      'a=values/set-001',
      '--set',
      'b=1',
      '--set',
      'm=true',
      '--set-file',
      'z=values/set-002',
    ]);
    expect(files.map((f) => [f.key, f.content])).toEqual([
      ['set-001', 'first'],
      ['set-002', 'last'],
    ]);
  });
});

describe('setStringText: what helm made of --set-string <key>=<value>', () => {
  it.each([
    ['no escapes', 'no escapes'],
    ['a\\,b', 'a,b'],
    ['a\\\\,b', 'a\\,b'],
    ['a\\\\\\,b', 'a\\,b'],
    ['back\\slash', 'backslash'],
    ['\\\\', '\\'],
    ['\\', ''],
    ['{a,b}', '{a,b}'],
    ['ünïcödé\\é', 'ünïcödéé'],
  ])('reads %j as %j', (input, output) => {
    expect(setStringText(input)).toBe(output);
  });
});
