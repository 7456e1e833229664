// Writes the CRDs of both API groups from the one source of truth in src/api.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_GROUPS, crdFilePath, renderCrdsYaml } from '../src/api/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

for (const group of API_GROUPS) {
  const file = path.join(root, crdFilePath(group));
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, renderCrdsYaml(group));
  console.log(`wrote ${path.relative(root, file)}`);
}

// The helmflow chart ships the default group's CRDs in its crds/ (test/unit/deploy.test.ts checks they match).
const chartCopy = path.join(root, 'deploy/chart/helmflow/crds/helm.k3sm.io.yaml');
writeFileSync(chartCopy, renderCrdsYaml('helm.k3sm.io'));
console.log(`wrote ${path.relative(root, chartCopy)}`);
