import type { V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';
import type { HelmChartSpec } from '../api/index.js';

/**
 * k3s's defaults for the helm pod (non-root, RuntimeDefault seccomp), plus a numeric non-root user: images that
 * carry helm are commonly built to run as root, and runAsNonRoot alone would refuse to start them.
 */
export function defaultPodSecurityContext(): V1PodSecurityContext {
  return { runAsNonRoot: true, runAsUser: 65534, runAsGroup: 65534, seccompProfile: { type: 'RuntimeDefault' } };
}

/** k3s's defaults for the helm container: no privilege escalation, no capabilities, a read-only root. */
export function defaultContainerSecurityContext(): V1SecurityContext {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true };
}

/** spec.podSecurityContext replaces the default as a whole (k3s semantics), it is not merged into it. */
export function podSecurityContext(spec: HelmChartSpec): V1PodSecurityContext {
  return spec.podSecurityContext ?? defaultPodSecurityContext();
}

/** spec.securityContext replaces the default as a whole (k3s semantics). */
export function containerSecurityContext(spec: HelmChartSpec): V1SecurityContext {
  return spec.securityContext ?? defaultContainerSecurityContext();
}
