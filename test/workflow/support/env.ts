import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, Runtime, DefaultLogger, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { toolPaths } from '../../../src/config/pins.js';
import { workflowsPath } from '../../../src/worker/workflows-path.js';
import { chartNameKey, chartNamespaceKey, phaseKey } from '../../../workflows/contract.js';

let runtimeInstalled = false;

/** The SDK's runtime logging only warnings, once per test file (the replay test needs no server). */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  runtimeInstalled = true;
}

/**
 * A real Temporal dev server (the pinned CLI, never downloaded) with helmflow's search attributes. `extraArgs`
 * reach `temporal server start-dev`, e.g. `--dynamic-config-value KEY=VALUE` for a test file's own server.
 */
export async function startTemporal(extraArgs: string[] = []): Promise<TestWorkflowEnvironment> {
  quietRuntime();
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: toolPaths().temporal },
      searchAttributes: [chartNamespaceKey, chartNameKey, phaseKey],
      extraArgs: ['--log-level', 'error', ...extraArgs],
    },
  });
}

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The chart workflow bundled once per test file, as the worker would bundle it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  return bundle;
}
