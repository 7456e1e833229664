/**
 * Records the histories of representative chart-workflow runs (test/workflow/support/scenarios.ts) on a fresh
 * Temporal dev server and writes them to test/fixtures/histories/<scenario>.json. Run after a deliberate change
 * of the workflow's commands (`npm run record:histories`), and commit the files: replay.test.ts replays them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { repoRoot } from '../src/config/pins.js';
import { startTemporal } from '../test/workflow/support/env.js';
import { scenarios } from '../test/workflow/support/scenarios.js';

const dir = path.join(repoRoot, 'test', 'fixtures', 'histories');

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const env = await startTemporal();
  try {
    for (const [name, run] of Object.entries(scenarios)) {
      const { workflowId, runId } = await run(env);
      const history = await env.client.workflow.getHandle(workflowId, runId).fetchHistory();
      const file = path.join(dir, `${name}.json`);
      // proto3 JSON, as `temporal workflow show --output json` writes it (historyToJSON trips over two protobufjs).
      const json = proto.temporal.api.history.v1.History.fromObject(history).toJSON();
      writeFileSync(file, `${JSON.stringify(json, null, 1)}\n`);
      console.log(`${path.relative(repoRoot, file)}: ${history.events?.length ?? 0} events`);
    }
  } finally {
    await env.teardown();
  }
}

await main();
