// The allocator setting the image runs helmflow with, read from the Dockerfile, so a bench measures memory the way
// the image runs it. glibc reads MALLOC_ARENA_MAX once, at process start: a process cannot set it for itself, so
// only the process's environment carries it (the image's ENV; a bench's spawn).
import { Option } from 'commander';
import { DockerfileParser, type Env } from 'dockerfile-ast';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../src/config/pins.js';
import { wholeNumber } from './flags.js';

const ARENA_MAX = 'MALLOC_ARENA_MAX';

/** The image's MALLOC_ARENA_MAX: the last the Dockerfile's final stage sets, or 0 (glibc's own, 8 per core). */
export function imageMallocArenaMax(): number {
  const dockerfile = DockerfileParser.parse(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
  let value = 0;
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === 'FROM') value = 0;
    if (instruction.getKeyword() !== 'ENV') continue;
    for (const property of (instruction as Env).getProperties()) {
      if (property.getName() === ARENA_MAX) value = Number(property.getValue());
    }
  }
  return value;
}

/** The environment a bench gives helmflow for `arenaMax` arenas; 0 leaves the variable out, so glibc's own apply. */
export function mallocEnv(arenaMax: number): NodeJS.ProcessEnv {
  return { [ARENA_MAX]: arenaMax === 0 ? undefined : String(arenaMax) };
}

/** How a bench's output names the setting. */
export function describeMalloc(arenaMax: number): string {
  return arenaMax === 0 ? "glibc's malloc arenas (8 per core)" : `${ARENA_MAX}=${String(arenaMax)}`;
}

/** The benches' --malloc-arena-max flag, defaulting to the image's setting. */
export function mallocArenaMaxOption(): Option {
  return new Option(
    '--malloc-arena-max <n>',
    "helmflow's MALLOC_ARENA_MAX (0: glibc's own); the default is the image's",
  )
    .argParser(wholeNumber(0))
    .default(imageMallocArenaMax());
}
