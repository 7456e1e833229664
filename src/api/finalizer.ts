import type { ApiGroup } from './group.js';
import { K3S_FINALIZER, K3S_GROUP, K3S_UNMANAGED_ANNOTATION } from './k3s.js';

/** The finalizer helmflow puts on every HelmChart it manages: released only after the uninstall ran. */
export const UNINSTALL_FINALIZER = 'helm.k3sm.io/uninstall';

/** A HelmChart carrying this annotation (any value but "false") is left alone by helmflow. */
export const UNMANAGED_ANNOTATION = 'helm.k3sm.io/unmanaged';

/** Changing this annotation's value asks for a retry of the chart (kubectl-friendly). */
export const RETRY_ANNOTATION = 'helm.k3sm.io/retry';

/**
 * The finalizers whose promise (uninstall the release, then let the HelmChart go) helmflow keeps on delete. Serving
 * helm.cattle.io in place of k3s's helm-controller, helmflow also keeps k3s's: k3s is no longer there to release it,
 * and a chart k3s took would otherwise stay Terminating.
 */
export function uninstallFinalizers(group: ApiGroup): readonly string[] {
  return group === K3S_GROUP ? [UNINSTALL_FINALIZER, K3S_FINALIZER] : [UNINSTALL_FINALIZER];
}

/**
 * A chart helmflow leaves alone: helmflow's annotation (any value but "false"), and, serving helm.cattle.io, k3s's
 * own (any value, as k3s reads it), so a chart a k3s user set aside stays set aside after the switch.
 */
export function isUnmanaged(annotations: Readonly<Record<string, string>> | undefined, group: ApiGroup): boolean {
  const ours = annotations?.[UNMANAGED_ANNOTATION];
  if (ours !== undefined && ours !== 'false') return true;
  return group === K3S_GROUP && annotations?.[K3S_UNMANAGED_ANNOTATION] !== undefined;
}

/**
 * A HelmChart carrying this annotation (any value but "false") is suspended: no install runs for it, whatever
 * changes, until the annotation is removed (`helmflow chart suspend|resume`). An attempt already running finishes.
 */
export const SUSPEND_ANNOTATION = 'helm.k3sm.io/suspend';

/** Suspended by `helmflow chart suspend` (or by hand): any value of the annotation but "false". */
export function isSuspended(annotations: Readonly<Record<string, string>> | undefined): boolean {
  const value = annotations?.[SUSPEND_ANNOTATION];
  return value !== undefined && value !== 'false';
}
