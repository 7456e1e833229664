import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SERVICE_ACCOUNT_DIR_ENV } from '../../src/kube/kubeconfig.js';
import { installCrds } from './support/crds.js';
import { startHelmflowCli } from './support/helmflow-cli.js';
import { testLayout } from './support/stack.js';

describe('kubeconfig precedence in a real process', () => {
  it('takes --kubeconfig over an in-cluster service account, and says so in its log', async () => {
    await installCrds('helm.k3sm.io');
    const layout = testLayout();
    // A pod's identity as the kubelet mounts it, pointing at the same apiserver, with a token it refuses: had
    // in-cluster won, the controller could never start its watches and become ready.
    const saDir = mkdtempSync(path.join(tmpdir(), 'helmflow-sa-'));
    writeFileSync(path.join(saDir, 'token'), 'a-token-the-apiserver-refuses');
    copyFileSync(layout.caCert, path.join(saDir, 'ca.crt'));
    writeFileSync(path.join(saDir, 'namespace'), 'kube-system');
    const id = `kubeconfig-${process.pid}`;
    const controller = await startHelmflowCli(
      'controller',
      [
        `--kubeconfig=${layout.adminKubeconfig}`,
        `--temporal-address=${layout.temporalAddress}`,
        `--task-queue=${id}`,
        `--lease-name=${id}`,
      ],
      {
        KUBERNETES_SERVICE_HOST: '127.0.0.1',
        KUBERNETES_SERVICE_PORT: String(layout.ports.apiserver),
        [SERVICE_ACCOUNT_DIR_ENV]: saDir,
      },
    );
    try {
      await controller.untilReady(90_000);
      const chosen = controller.logLines(/kubeconfig chosen/);
      expect(chosen).toHaveLength(1);
      expect(chosen[0]?.kubeconfig).toContain(`kubeconfig from --kubeconfig ${layout.adminKubeconfig}`);
      expect(controller.logs()).not.toContain(saDir);
      expect((await controller.terminate()).code).toBe(0);
    } finally {
      controller.dispose();
      rmSync(saDir, { recursive: true, force: true });
    }
  });
});
