import type { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startTemporal } from './env.js';

/** The test file's Temporal dev server, once its beforeAll has started it. */
export interface TemporalServer {
  readonly env: TestWorkflowEnvironment;
  readonly client: Client;
}

/**
 * Gives the calling test file its own real Temporal dev server: started before its tests, torn down after them.
 * Call it at the top level of the file; `extraArgs` reach `temporal server start-dev` (see startTemporal).
 * The server only exists once beforeAll has run, so the accessors are getters: read them inside tests.
 */
export function useTemporal(extraArgs: string[] = []): TemporalServer {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    env = await startTemporal(extraArgs);
  });
  afterAll(async () => {
    await env?.teardown();
  });
  const started = (): TestWorkflowEnvironment => {
    if (env === undefined) throw new Error('the Temporal dev server is started in beforeAll: use it inside a test');
    return env;
  };
  return {
    get env() {
      return started();
    },
    get client() {
      return started().client;
    },
  };
}
