import { benchCommand, wholeNumber, wholeNumbers } from '../../bench/flags.js';

describe("the benches' flags", () => {
  it.each([
    ['1000', 1, 1000],
    ['0', 0, 0],
    ['32', 1, 32],
  ])('reads %s as a whole number of at least %i', (value, least, expected) => {
    expect(wholeNumber(least)(value)).toBe(expected);
  });

  it.each([
    ['0', 1],
    ['-1', 0],
    ['1.5', 1],
    ['', 0],
    ['ten', 1],
    ['9007199254740993', 0],
  ])('refuses %j where at least %i is wanted', (value, least) => {
    expect(() => wholeNumber(least)(value)).toThrow(`Expected a whole number of at least ${String(least)}.`);
  });

  it('reads a list of whole numbers, and refuses it when one is not', () => {
    expect(wholeNumbers(1)('100,1000')).toEqual([100, 1000]);
    expect(() => wholeNumbers(1)('100,x')).toThrow('Expected a whole number of at least 1.');
  });

  // A mistyped flag used to start a long bench on its defaults.
  it('refuses an unknown flag and a bad value before anything runs', () => {
    const command = () =>
      benchCommand('many-charts', 'about')
        .exitOverride()
        .configureOutput({ writeErr: () => undefined })
        .option('--charts <n>', 'charts', wholeNumber(1), 40);
    expect(() => command().parse(['--chart', '10'], { from: 'user' })).toThrow(/unknown option '--chart'/);
    expect(() => command().parse(['--charts', '0'], { from: 'user' })).toThrow(/argument '0' is invalid/);
    expect(command().parse(['--charts', '1000'], { from: 'user' }).opts()).toEqual({ charts: 1000 });
    expect(command().parse([], { from: 'user' }).opts()).toEqual({ charts: 40 });
  });
});
