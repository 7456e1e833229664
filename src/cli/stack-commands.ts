import type { Command } from 'commander';
import { createLogger } from '../config/logger.js';
import { StackLayout, type StackPorts } from '../devstack/layout.js';
import { defaultStackLayout, stackStatus, startStack, stopStack } from '../devstack/stack.js';
import { runNativeNode } from '../nativenode/native-node.js';
import { writeNodeTrustBundle } from '../nativenode/trust.js';
import { spawnSync } from 'node:child_process';
import { toolPaths } from '../config/pins.js';
import { dropExampleChart, exampleInstalled } from '../devstack/example-chart.js';
import { stackHttpPort, startHelmflowDaemon } from '../devstack/helmflow-daemon.js';
import { kubeConfigFromFile } from '../kube/client.js';

function printWhere(layout: StackLayout): void {
  console.log(`
helmflow is running on its embedded stack.
  kubeconfig:   ${layout.adminKubeconfig}
  apiserver:    ${layout.apiserverUrl}
  Temporal:     ${layout.temporalAddress}
  Temporal UI:  ${layout.temporalUiUrl}   (one workflow per HelmChart)
  metrics:      http://127.0.0.1:${stackHttpPort}/metrics
  manifests:    ${layout.manifestsDir}   (the auto-deploy directory)
  logs:         ${layout.logsDir}
Try:  npm run -s helmflow -- kubectl get helmcharts -A
      npm run -s helmflow -- helm list -A
Stop: npm stop`);
}

export function registerStackCommands(program: Command): void {
  program
    .command('up')
    .description('start the embedded stack and helmflow on it, and install the example chart')
    .option('--stack-only', 'start only the stack (etcd, apiserver, controller-manager, native node, Temporal)')
    .action(async (opts: { stackOnly?: boolean }) => {
      const layout = defaultStackLayout();
      const log = createLogger('devstack');
      const started = Date.now();
      await startStack(layout, log);
      if (opts.stackOnly === true) {
        console.log(`embedded stack up; kubeconfig: ${layout.adminKubeconfig}`);
        return;
      }
      const file = dropExampleChart(layout);
      await startHelmflowDaemon(layout);
      const chart = await exampleInstalled(kubeConfigFromFile(layout.adminKubeconfig));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `\nThe example HelmChart ${chart.metadata.namespace}/${chart.metadata.name} (from ${file}) is installed` +
          ` by ${chart.status?.jobName ?? 'its Job'}, ${seconds}s after start.`,
      );
      const table = spawnSync(toolPaths().kubectl, ['get', 'helmcharts', '-A'], {
        env: { ...process.env, KUBECONFIG: layout.adminKubeconfig },
        encoding: 'utf8',
      });
      console.log(table.stdout);
      printWhere(layout);
    });

  program
    .command('down')
    .description('stop the embedded stack; no process of it is left running')
    .action(async () => {
      await stopStack(defaultStackLayout(), createLogger('devstack'));
    });

  program
    .command('status')
    .description('show which components of the embedded stack run and are ready')
    .action(async () => {
      const rows = await stackStatus(defaultStackLayout());
      for (const row of rows) {
        const state = row.ready ? 'ready' : row.running ? 'running, not ready' : 'stopped';
        console.log(`${row.name.padEnd(24)} ${state.padEnd(20)} ${row.pid ?? '-'}\t${row.logFile}`);
      }
      if (!rows.every((r) => r.ready)) process.exitCode = 1;
    });

  program
    .command('native-node')
    .description('run the native node (started by `up`; runs pods as host processes)')
    .requiredOption('--state-dir <dir>', 'the stack state directory')
    .requiredOption('--port-offset-json <json>', 'the stack ports, as JSON')
    .option('--node-name <name>', 'the Node name', 'helmflow-native')
    .option('--recheck-seconds <n>', 'how often a missing binary is looked for again', '60')
    .action(async (opts: { stateDir: string; portOffsetJson: string; nodeName: string; recheckSeconds: string }) => {
      const log = createLogger('native-node');
      const layout = new StackLayout(opts.stateDir, JSON.parse(opts.portOffsetJson) as StackPorts);
      const stop = await runNativeNode(
        {
          layout,
          nodeName: opts.nodeName,
          recheckSeconds: Number(opts.recheckSeconds),
          trustBundle: writeNodeTrustBundle(layout),
        },
        log,
      );
      const shutdown = (signal: string) => {
        log.info({ signal }, 'stopping native node');
        void stop().finally(() => process.exit(0));
      };
      process.once('SIGTERM', () => {
        shutdown('SIGTERM');
      });
      process.once('SIGINT', () => {
        shutdown('SIGINT');
      });
    });
}

/** `helmflow kubectl|helm|temporal …`: the pinned tool, pointed at the embedded stack unless the environment says otherwise. */
export function registerToolCommands(program: Command): void {
  for (const tool of ['kubectl', 'helm', 'temporal'] as const) {
    program
      .command(tool)
      .description(`run the pinned ${tool} against the embedded stack`)
      .allowUnknownOption()
      .helpOption(false)
      .argument('[args...]')
      .action((args: string[]) => {
        const layout = defaultStackLayout();
        const env: NodeJS.ProcessEnv = { ...process.env, KUBECONFIG: process.env.KUBECONFIG ?? layout.adminKubeconfig };
        if (tool === 'temporal') env.TEMPORAL_ADDRESS = process.env.TEMPORAL_ADDRESS ?? layout.temporalAddress;
        const result = spawnSync(toolPaths()[tool], args, { stdio: 'inherit', env });
        process.exitCode = result.status ?? 1;
      });
  }
}
