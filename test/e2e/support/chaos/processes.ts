import type { Settings } from '../../../../src/app/settings.js';
import { crashComponent, restartStack } from '../crash.js';
import { spawnRole, type ChildRole } from '../helmflow.js';
import type { KillKind } from './plan.js';

/**
 * helmflow's controller and worker, each in a process of its own so each can be killed alone, plus the
 * embedded stack's processes: `crash(kind)` is `kill -9` of one of them followed by its restart, as a
 * supervisor (a kubelet, systemd) would restart it. A restarted controller waits for the killed one's Lease to
 * expire; a restarted worker picks up what Temporal gives it.
 */
export class ChaosProcesses {
  private controller: ChildRole | undefined;
  private worker: ChildRole | undefined;

  constructor(readonly settings: Settings) {}

  async start(): Promise<void> {
    this.worker = spawnRole('worker', this.settings);
    this.controller = spawnRole('controller', this.settings);
    await this.controller.printed('leading');
  }

  /** Kills `kind` with SIGKILL and starts it again; resolves once the restart was started (roles) or serves (stack). */
  async crash(kind: KillKind): Promise<void> {
    if (kind === 'worker') {
      await this.worker?.kill();
      this.worker = spawnRole('worker', this.settings);
    } else if (kind === 'controller') {
      await this.controller?.kill();
      this.controller = spawnRole('controller', this.settings);
    } else {
      await crashComponent(kind);
      await restartStack();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([this.controller?.kill(), this.worker?.kill()]);
  }
}
