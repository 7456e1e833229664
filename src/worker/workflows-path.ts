import path from 'node:path';
import { repoRoot } from '../config/pins.js';

/** The workflow bundle's entry file, bundled by the worker (TypeScript, through Temporal's bundler). */
export const workflowsPath = path.join(repoRoot, 'workflows', 'index.ts');
