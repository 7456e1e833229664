import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { repoRoot } from '../../src/config/pins.js';
import { quietRuntime, workflowBundle } from './support/env.js';
import { scenarios } from './support/scenarios.js';

const dir = path.join(repoRoot, 'test', 'fixtures', 'histories');
const fixtures = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort();

beforeAll(() => {
  quietRuntime();
});

describe('recorded chart-workflow histories (npm run record:histories)', () => {
  it('cover every scenario', () => {
    expect(fixtures).toEqual(
      Object.keys(scenarios)
        .map((name) => `${name}.json`)
        .sort(),
    );
  });

  it('replay against the current workflow code without non-determinism', async () => {
    const histories = fixtures.map((file) => ({
      workflowId: path.basename(file, '.json'),
      // What scripts/record-histories.ts wrote (historyFromJSON trips over two protobufjs versions in the tree).
      history: proto.temporal.api.history.v1.History.fromObject(
        JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>,
      ),
    }));
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      replayed += 1;
      if (result.error !== undefined) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
    expect(failures).toEqual([]);
    expect(replayed).toBe(fixtures.length);
  });
});
