import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { repoRoot } from '../../src/config/pins.js';
import { quietRuntime, workflowBundle } from './support/env.js';
import { scenarios } from './support/scenarios.js';

const dir = path.join(repoRoot, 'test', 'fixtures', 'histories');
const jsonIn = (folder: string) =>
  readdirSync(path.join(dir, folder))
    .filter((f) => f.endsWith('.json'))
    .sort();
const fixtures = jsonIn('.');
/**
 * Histories recorded by earlier shapes of the workflow, kept so runs started before a patch keep replaying:
 * before-lean-chart-history/ holds the scenarios as they ran before the patch lean-chart-history,
 * before-pause-waits-for-job-create/ a cancel while the Job was being created, before that patch,
 * before-reinstall-after-failed-change/ a refused change changed back, which before that patch left the chart Failed.
 */
const earlierShapes = [
  'before-lean-chart-history',
  'before-pause-waits-for-job-create',
  'before-reinstall-after-failed-change',
];
const replayed = [...fixtures, ...earlierShapes.flatMap((folder) => jsonIn(folder).map((f) => path.join(folder, f)))];

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
    const histories = replayed.map((file) => ({
      workflowId: file.replace(/\.json$/, ''),
      // What scripts/record-histories.ts wrote (historyFromJSON trips over two protobufjs versions in the tree).
      history: proto.temporal.api.history.v1.History.fromObject(
        JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>,
      ),
    }));
    const failures: string[] = [];
    let count = 0;
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      count += 1;
      if (result.error !== undefined) failures.push(`${result.workflowId}: ${String(result.error)}`);
    }
    expect(failures).toEqual([]);
    expect(count).toBe(replayed.length);
    expect(replayed.length).toBeGreaterThan(fixtures.length);
  });
});
