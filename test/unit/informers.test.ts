import net from 'node:net';
import { pino } from 'pino';
import { chartInformers } from '../../src/controller/informers.js';
import { PooledKubeConfig } from '../../src/kube/pooled-kube-config.js';
import { waitFor } from '../../src/lib/wait.js';

describe("the controller's watches, against an apiserver that never answers", () => {
  let server: net.Server | undefined;
  const sockets: net.Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('cut each list at its deadline, say which, and let the start go on', async () => {
    // Accepts every connection, reads the request, answers nothing: a half-open link as the client sees it.
    const closed: net.Socket[] = [];
    server = net.createServer((socket) => {
      sockets.push(socket);
      // Read (and drop) the request, so the client's end of the connection is seen.
      socket.resume();
      socket.on('close', () => closed.push(socket));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const kc = new PooledKubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${String(port)}`, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const informers = chartInformers(kc, 'helm.k3sm.io', log, 300);
    try {
      await informers.start();
      // Each list failed with its name and was logged as a watch to restart; the requests were cut, not left open.
      const said = lines.map((line) => (JSON.parse(line) as { err?: string }).err);
      for (const what of ['helmcharts', 'helmchartconfigs', 'secrets']) {
        expect(said).toContain(`the ${what} list did not answer within 300 ms`);
      }
      await waitFor('the three list connections closed', () => closed.length >= 3, { timeoutMs: 5_000 });
    } finally {
      await informers.stop();
    }
  });
});
