import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Runtime, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { toolPaths } from '../../../src/config/pins.js';
import { workflowsPath } from '../../../src/worker/workflows-path.js';
import { chartNameKey, chartNamespaceKey, phaseKey } from '../../../workflows/contract.js';

let runtimeInstalled = false;

/** A real Temporal dev server (the pinned CLI, never downloaded) with helmflow's search attributes. */
export async function startTemporal(): Promise<TestWorkflowEnvironment> {
  if (!runtimeInstalled) {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    runtimeInstalled = true;
  }
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: toolPaths().temporal },
      searchAttributes: [chartNamespaceKey, chartNameKey, phaseKey],
      extraArgs: ['--log-level', 'error'],
    },
  });
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The chart workflow bundled once per test file, as the worker would bundle it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  return bundle;
}
