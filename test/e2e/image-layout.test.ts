import dockerignore from '@balena/dockerignore';
import { DockerfileParser, ModifiableInstruction, type Env, type JSONInstruction } from 'dockerfile-ast';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { settingSpecs } from '../../src/app/settings.js';
import { repoRoot } from '../../src/config/pins.js';
import { get } from '../../src/devstack/http.js';
import { waitFor, WaitAborted } from '../../src/devstack/wait.js';
import { buildChart, releaseValues } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { apply, chartInstalled, helmChart, releaseRevisions } from './support/helmcharts.js';
import { freshNamespace } from './support/kube.js';
import { testLayout } from './support/stack.js';

/**
 * The Dockerfile's image, reproduced without Docker (none runs where helmflow is developed). The final stage's
 * instructions are read from the Dockerfile itself and replayed in order in a directory standing for WORKDIR —
 * COPY from the build context (honouring .dockerignore), RUN (its `npm ci`, offline, from the npm cache the
 * project's own `npm ci` filled), ENV — and its ENTRYPOINT + CMD then has to run helmflow for real: install a
 * chart with helm, answer /readyz, stop on SIGTERM. So a stale Dockerfile (a missing COPY, a dependency the
 * production install leaves out) fails here. Not reproduced: the base image and USER.
 */

interface Stage {
  /** In Dockerfile order, as the build runs them. */
  steps: ({ kind: 'copy'; sources: string[]; dest: string } | { kind: 'run'; command: string })[];
  env: Record<string, string>;
  workdir: string;
  expose: string[];
  entrypoint: string[];
  cmd: string[];
}

/** The last stage of a Dockerfile; an instruction this test cannot replay fails it, so it is taught, not skipped. */
function finalStage(text: string): Stage {
  const dockerfile = DockerfileParser.parse(text);
  const from = dockerfile.getFROMs().at(-1);
  const startLine = from?.getRange().start.line ?? -1;
  const stage: Stage = { steps: [], env: {}, workdir: '/', expose: [], entrypoint: [], cmd: [] };
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getRange().start.line <= startLine) continue;
    const line = instruction.getTextContent();
    const args = instruction.getArguments().map((a) => a.getValue());
    const flags = instruction instanceof ModifiableInstruction ? instruction.getFlags() : [];
    switch (instruction.getKeyword()) {
      case 'ENV':
        for (const property of (instruction as Env).getProperties()) {
          stage.env[property.getName()] = property.getValue() ?? '';
        }
        break;
      case 'WORKDIR':
        stage.workdir = path.posix.resolve(stage.workdir, args.join(' '));
        break;
      case 'COPY':
        if (flags.length > 0 || args.some((a) => /[*?[]/.test(a))) {
          throw new Error(`this test replays only a plain COPY from the build context, not: ${line}`);
        }
        stage.steps.push({ kind: 'copy', sources: args.slice(0, -1), dest: args.at(-1) ?? '' });
        break;
      case 'RUN':
        // RUN flags (--mount=type=cache…) change how the build caches, not what the command does.
        stage.steps.push({ kind: 'run', command: args.join(' ') });
        break;
      case 'EXPOSE':
        stage.expose.push(...args);
        break;
      case 'ENTRYPOINT':
        stage.entrypoint = (instruction as JSONInstruction).getJSONStrings().map((a) => a.getJSONValue());
        break;
      case 'CMD':
        stage.cmd = (instruction as JSONInstruction).getJSONStrings().map((a) => a.getJSONValue());
        break;
      case 'USER':
        break; // not reproducible here; see the check that the process writes nothing under WORKDIR
      default:
        throw new Error(`this test does not know how to replay: ${line}`);
    }
  }
  return stage;
}

// The package is CommonJS (module.exports = the factory) while its types declare a default export: under
// NodeNext the default import is the factory at run time, which the types call `.default`.
const ignoreRules = dockerignore as unknown as typeof dockerignore.default;

/** A path of the build context that .dockerignore leaves out, as docker build reads that file. */
function dockerignored(): (relative: string) => boolean {
  const rules = ignoreRules().add(readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8').split('\n'));
  return (relative) => relative !== '' && rules.ignores(relative.split(path.sep).join('/'));
}

/** Every path under `dir`, so a write by the process shows up. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('the image of the Dockerfile, laid out without Docker', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'helmflow-image-'));
  let running: ChildProcess | undefined;
  afterAll(() => {
    // Only if the test failed before the process was stopped: nothing may be left running.
    if (running?.exitCode === null && running.signalCode === null) running.kill('SIGKILL');
    rmSync(scratch, { recursive: true, force: true });
  });

  it('installs a chart with real helm, answers /readyz and stops cleanly on SIGTERM', async () => {
    const stage = finalStage(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
    const root = path.join(scratch, 'root'); // the image's /
    const app = path.join(root, stage.workdir);
    mkdirSync(app, { recursive: true });
    // Node resolves node_modules upwards: none may be above the app directory, or the repository's could serve it.
    for (let dir = path.dirname(app); dir !== path.dirname(dir); dir = path.dirname(dir)) {
      expect(existsSync(path.join(dir, 'node_modules')) ? dir : 'none').toBe('none');
    }
    expect(existsSync('/node_modules')).toBe(false);

    const ignored = dockerignored();
    for (const step of stage.steps) {
      if (step.kind === 'copy') {
        const dest = path.join(root, path.posix.resolve(stage.workdir, step.dest));
        for (const source of step.sources) {
          // docker build fails on a source the context leaves out; inside a directory, such paths are skipped.
          expect(ignored(path.normalize(source)) ? `${source} (in .dockerignore)` : source).toBe(source);
          const into = step.dest.endsWith('/') ? path.join(dest, path.basename(source)) : dest;
          mkdirSync(path.dirname(into), { recursive: true });
          cpSync(path.join(repoRoot, source), into, {
            recursive: true,
            filter: (from) => !ignored(path.relative(repoRoot, from)),
          });
        }
      } else {
        if (!/^npm ci\s/.test(step.command)) throw new Error(`this test replays only npm ci, not: ${step.command}`);
        // The same command, offline: it installs from the npm cache the project's `npm ci` filled, or fails.
        const result = spawnSync('/bin/sh', ['-c', step.command], {
          cwd: app,
          env: { ...process.env, ...stage.env, npm_config_offline: 'true', NODE_OPTIONS: '' },
          encoding: 'utf8',
          timeout: 180_000,
        });
        if (result.status !== 0) {
          throw new Error(
            `${step.command} (offline) failed; run \`npm ci\` in the repository to fill the npm cache:\n${result.stderr}`,
          );
        }
      }
    }
    // The production install: what follows runs without the dev tooling, with tsx from the dependencies.
    for (const dev of ['typescript', 'jest', 'ts-jest', '@temporalio/testing']) {
      expect(existsSync(path.join(app, 'node_modules', dev)) ? dev : 'absent').toBe('absent');
    }
    expect(statSync(path.join(app, 'node_modules', 'tsx')).isDirectory()).toBe(true);
    // The port the image exposes is helmflow's default HTTP port.
    expect(stage.expose).toEqual([settingSpecs.find((s) => s.env === 'HELMFLOW_HTTP_PORT')?.def]);

    await installCrds('helm.k3sm.io');
    const layout = testLayout();
    const port = layout.ports.temporalMetrics + 92; // process.test.ts uses +90 and +91 (the worker core's)
    const name = `helmflow-image-${Date.now()}`;
    const home = mkdtempSync(path.join(scratch, 'home-'));
    const [node, ...args] = [...stage.entrypoint, ...stage.cmd];
    expect(node).toBe('node');
    const before = tree(app);
    // A container's environment: the image's ENV, a HOME of its own, the test stack passed as settings.
    const child = spawn(process.execPath, args, {
      cwd: app,
      env: {
        PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: home,
        ...stage.env,
        HELMFLOW_KUBECONFIG: layout.adminKubeconfig,
        TEMPORAL_ADDRESS: layout.temporalAddress,
        HELMFLOW_TASK_QUEUE: name,
        HELMFLOW_LEASE_NAME: name,
        HELMFLOW_HTTP_PORT: String(port),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    running = child;
    const alive = () => {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new WaitAborted(
          `helmflow exited (${String(child.exitCode ?? child.signalCode)}):\n${stderr.slice(-4000)}`,
        );
      }
    };
    try {
      await waitFor(
        `/readyz of the image's process`,
        async () => {
          alive();
          return (await get(`http://127.0.0.1:${port}/readyz`)).status === 200;
        },
        { timeoutMs: 90_000 },
      );
      const ns = await freshNamespace('image');
      apply(helmChart(ns, 'imaged', { chartContent: buildChart({ name: 'imaged' }).chartContent }));
      await chartInstalled(ns, 'imaged');
      expect(releaseRevisions(ns, 'imaged').map((r) => r.status)).toEqual(['deployed']);
      expect(await releaseValues(ns, 'imaged')).toEqual({});
      // This process did it: its controller leads its Lease and its worker awaited the Job.
      const metrics = (await get(`http://127.0.0.1:${port}/metrics`)).body;
      expect(metrics).toMatch(/^helmflow_leader 1$/m);
      expect(metrics).toMatch(/^temporal_activity_task_received_total\{activity_type="awaitJob"/m);
    } finally {
      child.kill('SIGTERM');
    }
    await waitFor('the process to exit after SIGTERM', () => child.exitCode !== null || child.signalCode !== null, {
      timeoutMs: 30_000,
    });
    expect(child.exitCode).toBe(0);
    // The image's user owns nothing under WORKDIR: a process that wrote there would fail in the container.
    expect(tree(app)).toEqual(before);
  });
});
