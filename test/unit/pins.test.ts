import { readPins, toolPaths } from '../../src/config/pins.js';

describe('pins', () => {
  it('pins the versions the design names and places each tool under its version', () => {
    const pins = readPins();
    expect(pins.helm).toBe('v4.3.0');
    expect(pins.temporal).toBe('v1.5.1');
    expect(pins['temporal-sqlite']).toBe('v1.51.0');
    expect(pins.kubernetes).toMatch(/^v1\.34\.\d+$/);
    expect(pins.etcd).toMatch(/^v3\.6\.\d+$/);
    const paths = toolPaths(pins);
    expect(paths.helm).toContain(`helm-${pins.helm}`);
    expect(paths.kubectl).toContain(`kubernetes-${pins.kubernetes}`);
    // A new SQLite pin builds the CLI anew, not taken from the cache of the old one.
    expect(paths.temporal).toContain('temporal-v1.5.1-sqlite-v1.51.0');
  });
});
