// Build step (`npm run build`, after tsc): bundles the compiled workflows into dist/workflow-bundle.js, which the
// compiled worker loads instead of bundling at start. Bundling the compiled .js here also proves it bundles.
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { writeFileSync } from 'node:fs';
import { prebuiltBundlePath, workflowsPath } from './workflows-path.js';

if (!workflowsPath.endsWith('.js'))
  throw new Error('bundle-workflows runs compiled: node dist/src/worker/bundle-workflows.js');
const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
writeFileSync(prebuiltBundlePath, code);
console.log(`helmflow: workflow bundle written to ${prebuiltBundlePath} (${Math.round(code.length / 1024)} KiB)`);
