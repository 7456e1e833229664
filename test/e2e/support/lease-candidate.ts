// A leader-election candidate in a process of its own, so a test can SIGKILL it: the Lease is then left held,
// never released, as after a crash. Run with tsx: lease-candidate.ts <kubeconfig> <namespace> <name> <identity>.
// Prints "leading" on stdout once it holds the Lease.
import { kubeConfigFromFile } from '../../../src/kube/client.js';
import { LeaderElector } from '../../../src/kube/leader-election.js';
import { leaseTimings } from './leases.js';

const [kubeconfig, namespace, name, identity] = process.argv.slice(2);
if (kubeconfig === undefined || namespace === undefined || name === undefined || identity === undefined) {
  throw new Error('usage: lease-candidate.ts <kubeconfig> <namespace> <name> <identity>');
}
const elector = new LeaderElector({
  kubeConfig: kubeConfigFromFile(kubeconfig),
  namespace,
  name,
  identity,
  ...leaseTimings,
  onStartedLeading: () => process.stdout.write('leading\n'),
});
elector.start();
