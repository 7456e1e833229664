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
