import dockerignore from '@balena/dockerignore';
import { DockerfileParser, From, ModifiableInstruction, type Env, type JSONInstruction } from 'dockerfile-ast';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { settingSpecs } from '../../src/app/setting-specs.js';
import { repoRoot } from '../../src/config/pins.js';
import { get } from '../../src/lib/http.js';
import { waitFor, WaitAborted } from '../../src/lib/wait.js';
import { buildChart, releaseValues } from './support/charts.js';
import { installCrds } from './support/crds.js';
import { apply, chartInstalled, helmChart, releaseRevisions } from './support/helmcharts.js';
import { freshNamespace } from './support/kube.js';
import { testLayout } from './support/stack.js';

/**
 * The Dockerfile's image, reproduced without Docker (none runs where helmflow is developed). Every stage's
 * instructions are read from the Dockerfile itself and replayed in order, each stage in a directory standing for
 * its root — COPY from the build context (honouring .dockerignore) or from an earlier stage, RUN (`npm ci`
 * offline from the npm cache the project's own `npm ci` filled, `npm run build`), ENV — and the final stage's
 * ENTRYPOINT + CMD then has to run helmflow for real: install a chart with helm, answer /readyz, stop on SIGTERM.
 * So a stale Dockerfile (a missing COPY, a dependency the production install leaves out, a build step the
 * compiled entry needs) fails here. Not reproduced: the base image, its apt packages (checked to be installed on
 * this machine instead, which the replay runs on) and USER.
 */

type Step =
  { kind: 'copy'; sources: string[]; dest: string; from: string | undefined } | { kind: 'run'; command: string };

interface Stage {
  name: string | undefined;
  /** In Dockerfile order, as the build runs them. */
  steps: Step[];
  env: Record<string, string>;
  workdir: string;
  expose: string[];
  entrypoint: string[];
  cmd: string[];
}

/** The stages of a Dockerfile; an instruction this test cannot replay fails it, so it is taught, not skipped. */
function stagesOf(text: string): Stage[] {
  const dockerfile = DockerfileParser.parse(text);
  const stages: Stage[] = [];
  for (const instruction of dockerfile.getInstructions()) {
    const line = instruction.getTextContent();
    const args = instruction.getArguments().map((a) => a.getValue());
    const flags = instruction instanceof ModifiableInstruction ? instruction.getFlags() : [];
    if (instruction instanceof From) {
      stages.push({
        name: instruction.getBuildStage() ?? undefined,
        steps: [],
        env: {},
        workdir: '/',
        expose: [],
        entrypoint: [],
        cmd: [],
      });
      continue;
    }
    const stage = stages.at(-1);
    if (stage === undefined) {
      if (instruction.getKeyword() === 'ARG') continue; // the base image's name, before the first FROM
      throw new Error(`this test does not know how to replay before FROM: ${line}`);
    }
    switch (instruction.getKeyword()) {
      case 'ENV':
        for (const property of (instruction as Env).getProperties()) {
          stage.env[property.getName()] = property.getValue() ?? '';
        }
        break;
      case 'WORKDIR':
        stage.workdir = path.posix.resolve(stage.workdir, args.join(' '));
        break;
      case 'COPY': {
        const from = flags.find((f) => f.getName() === 'from')?.getValue() ?? undefined;
        if (flags.some((f) => f.getName() !== 'from') || args.some((a) => /[*?[]/.test(a))) {
          throw new Error(`this test replays only a plain COPY, from the context or a stage, not: ${line}`);
        }
        stage.steps.push({ kind: 'copy', sources: args.slice(0, -1), dest: args.at(-1) ?? '', from });
        break;
      }
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
  return stages;
}

/** The only apt-get line the final stage may run: the packages the slim base image leaves out. */
const aptInstall =
  /^apt-get update && apt-get install -y --no-install-recommends ((?:[a-z0-9.+-]+ ?)+) && rm -rf \/var\/lib\/apt\/lists\/\*$/;

/** One RUN, in `cwd` with the stage's ENV: npm ci (offline), npm run build, or the apt packages checked here. */
function replayRun(command: string, cwd: string, env: Record<string, string>): void {
  const apt = aptInstall.exec(command);
  if (apt !== null) {
    // The replay runs on this machine's OS, so what the image installs must be installed here too.
    for (const pkg of (apt[1] ?? '').trim().split(' ')) {
      const query = spawnSync('dpkg-query', ['-W', '-f=${Status}', pkg], { encoding: 'utf8' });
      expect(`${pkg}: ${query.stdout}`).toBe(`${pkg}: install ok installed`);
    }
    return;
  }
  if (!/^npm ci\s/.test(command) && command !== 'npm run build') {
    throw new Error(`this test replays only npm ci, npm run build and ${String(aptInstall)}, not: ${command}`);
  }
  // The same command, offline: it installs from the npm cache the project's `npm ci` filled, or fails.
  const result = spawnSync('/bin/sh', ['-c', command], {
    cwd,
    env: { ...process.env, ...env, npm_config_offline: 'true', NODE_OPTIONS: '' },
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (result.status !== 0) {
    throw new Error(`${command} (offline) failed; \`npm ci\` in the repository fills the npm cache:\n${result.stderr}`);
  }
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

  /** Lays out one stage under `root` (its /): the earlier stages are in `roots`, by name. */
  function replayStage(stage: Stage, root: string, roots: Map<string, string>): void {
    const ignored = dockerignored();
    const workdir = path.join(root, stage.workdir);
    mkdirSync(workdir, { recursive: true });
    for (const step of stage.steps) {
      if (step.kind === 'run') {
        replayRun(step.command, workdir, stage.env);
        continue;
      }
      const dest = path.join(root, path.posix.resolve(stage.workdir, step.dest));
      const fromRoot = step.from === undefined ? undefined : roots.get(step.from);
      if (step.from !== undefined && fromRoot === undefined) throw new Error(`COPY --from=${step.from}: no such stage`);
      for (const source of step.sources) {
        const into = step.dest.endsWith('/') ? path.join(dest, path.basename(source)) : dest;
        mkdirSync(path.dirname(into), { recursive: true });
        if (fromRoot !== undefined) {
          // From a stage: the path is absolute in that stage's filesystem (or relative to its WORKDIR: not used).
          expect(path.posix.isAbsolute(source) ? source : `${source} (not absolute)`).toBe(source);
          cpSync(path.join(fromRoot, source), into, { recursive: true });
          continue;
        }
        // docker build fails on a source the context leaves out; inside a directory, such paths are skipped.
        expect(ignored(path.normalize(source)) ? `${source} (in .dockerignore)` : source).toBe(source);
        cpSync(path.join(repoRoot, source), into, {
          recursive: true,
          filter: (from) => !ignored(path.relative(repoRoot, from)),
        });
      }
    }
  }

  it('builds the compiled entry in its build stage; the final stage installs a chart with real helm, answers /readyz and stops cleanly on SIGTERM', async () => {
    const stages = stagesOf(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));
    const roots = new Map<string, string>();
    stages.forEach((stage, i) => {
      const root = path.join(scratch, `stage-${String(i)}`); // the stage's /
      // Node resolves node_modules upwards: none may be above a stage, or the repository's could serve it.
      for (let dir = root; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        expect(existsSync(path.join(dir, 'node_modules')) ? dir : 'none').toBe('none');
      }
      replayStage(stage, root, roots);
      roots.set(stage.name ?? String(i), root);
    });
    const stage = stages.at(-1);
    if (stage === undefined) throw new Error('the Dockerfile has no stage');
    const app = path.join(scratch, `stage-${String(stages.length - 1)}`, stage.workdir);
    // The production install: what follows runs compiled JavaScript, without the dev tooling or a TypeScript loader.
    for (const dev of ['typescript', 'jest', 'ts-jest', '@temporalio/testing', 'tsx']) {
      expect(existsSync(path.join(app, 'node_modules', dev)) ? dev : 'absent').toBe('absent');
    }
    expect(existsSync(path.join(app, 'src')) ? 'src/ in the image' : 'no sources').toBe('no sources');
    // The entry point is the package's `helmflow` executable, with the workflow bundle made at build time.
    const pkg = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as { bin: { helmflow: string } };
    expect(stage.entrypoint).toEqual(['node', pkg.bin.helmflow]);
    expect(statSync(path.join(app, 'dist', 'workflow-bundle.js')).isFile()).toBe(true);
    // The port the image exposes is helmflow's default HTTP port.
    expect(stage.expose).toEqual([String(settingSpecs.httpPort.def)]);

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
    // Two offline installs and a TypeScript build come first: minutes on a shared machine.
  }, 900_000);
});
