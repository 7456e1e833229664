import type { WorkerOptions } from '@temporalio/worker';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
/** Run as compiled JavaScript (dist/src/worker/…), not as the TypeScript sources through tsx or ts-jest. */
const compiled = path.extname(self) === '.js';
/** workflows/ is two levels above src/worker/, in the repository and in dist/ alike. */
const root = path.join(path.dirname(self), '..', '..');

/** The workflow bundle's entry file: the sources' index.ts, or the compiled index.js next to this compiled file. */
export const workflowsPath = path.join(root, 'workflows', compiled ? 'index.js' : 'index.ts');

/** The bundle `npm run build` writes from the compiled workflows (src/worker/bundle-workflows.ts). */
export const prebuiltBundlePath = path.join(root, 'workflow-bundle.js');

/**
 * Where a worker gets its workflow code: compiled, the bundle made at build time, so production neither loads the
 * bundler nor spends seconds and memory bundling at start; from the sources, a bundle made at start.
 */
export function workflowSource(): Pick<WorkerOptions, 'workflowsPath' | 'workflowBundle'> {
  return compiled ? { workflowBundle: { codePath: prebuiltBundlePath } } : { workflowsPath };
}
