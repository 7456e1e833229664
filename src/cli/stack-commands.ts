import type { Command } from 'commander';
import { createLogger } from '../config/logger.js';
import { StackLayout, type StackPorts } from '../devstack/layout.js';
import { defaultStackLayout, stackStatus, startStack, stopStack } from '../devstack/stack.js';
import { runNativeNode } from '../nativenode/native-node.js';

function printWhere(layout: StackLayout): void {
  console.log(`
helmflow embedded stack is up.
  kubeconfig:   ${layout.adminKubeconfig}
  apiserver:    ${layout.apiserverUrl}
  Temporal:     ${layout.temporalAddress}
  Temporal UI:  ${layout.temporalUiUrl}
  logs:         ${layout.logsDir}
Try:  KUBECONFIG=${layout.adminKubeconfig} npm run -s helmflow -- kubectl get nodes
Stop: npm stop`);
}

export function registerStackCommands(program: Command): void {
  program
    .command('up')
    .description('start the embedded stack (etcd, kube-apiserver, kube-controller-manager, native node, Temporal)')
    .action(async () => {
      const layout = defaultStackLayout();
      await startStack(layout, createLogger('devstack'));
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
        { layout, nodeName: opts.nodeName, recheckSeconds: Number(opts.recheckSeconds) },
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
