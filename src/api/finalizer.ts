/** The finalizer helmflow puts on every HelmChart it manages: released only after the uninstall ran. */
export const UNINSTALL_FINALIZER = 'helm.k3sm.io/uninstall';

/** A HelmChart carrying this annotation (any value but "false") is left alone by helmflow. */
export const UNMANAGED_ANNOTATION = 'helm.k3sm.io/unmanaged';

/** Changing this annotation's value asks for a retry of the chart (kubectl-friendly). */
export const RETRY_ANNOTATION = 'helm.k3sm.io/retry';

/**
 * A HelmChart carrying this annotation (any value but "false") is suspended: no install runs for it, whatever
 * changes, until the annotation is removed (`helmflow chart suspend|resume`). An attempt already running ends.
 */
export const SUSPEND_ANNOTATION = 'helm.k3sm.io/suspend';
