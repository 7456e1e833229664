import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, From } from 'dockerfile-ast';
import { imageMallocArenaMax, mallocEnv } from '../../bench/image-env.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dockerfile = DockerfileParser.parse(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));

/** The default of each ARG declared before the first FROM, as docker build substitutes it into FROM. */
function globalArgs(): Record<string, string> {
  const args: Record<string, string> = {};
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction instanceof From) break;
    if (instruction.getKeyword() !== 'ARG') continue;
    const [name, value] = (instruction.getArguments()[0]?.getValue() ?? '').split('=', 2);
    if (name !== undefined && value !== undefined) args[name] = value;
  }
  return args;
}

describe('the Dockerfile base image', () => {
  // A tag moves with every rebuild upstream; a digest names one image. The digest's origin and how to check or
  // move it are in the comment above the ARG.
  it('is a Node LTS slim glibc image pinned by its index digest, for every stage', () => {
    const args = globalArgs();
    const images = dockerfile
      .getFROMs()
      .map((from) => (from.getImageName() ?? '').replace(/^\$\{(\w+)\}$/, (_, name: string) => args[name] ?? ''));
    expect(images.length).toBeGreaterThan(1);
    for (const image of images) {
      expect(image).toMatch(/^node:22-bookworm-slim@sha256:[0-9a-f]{64}$/);
    }
  });
});

describe("the image's allocator setting", () => {
  // The benches measure helmflow's memory with the image's setting (bench/image-env.ts); the image must keep it.
  it('caps glibc at two malloc arenas in the final stage, where the benches read it', () => {
    expect(imageMallocArenaMax()).toBe(2);
    expect(mallocEnv(imageMallocArenaMax())).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(mallocEnv(0)).toEqual({ MALLOC_ARENA_MAX: undefined });
  });
});
