import { arrayOf, boolean, integer, object, string } from './schema.js';

/**
 * The Kubernetes core/v1 PodSecurityContext and SecurityContext as k3s's CRD carries them (spec.podSecurityContext,
 * spec.securityContext). Typed rather than free-form, so a typo is refused at apply time instead of when the Job
 * is created.
 */

const seLinuxOptions = object({ level: string(), role: string(), type: string(), user: string() });
const seccompProfile = object({ localhostProfile: string(), type: string() }, { required: ['type'] });
const appArmorProfile = object({ localhostProfile: string(), type: string() }, { required: ['type'] });
const windowsOptions = object({
  gmsaCredentialSpec: string(),
  gmsaCredentialSpecName: string(),
  hostProcess: boolean(),
  runAsUserName: string(),
});

export const podSecurityContextSchema = object(
  {
    appArmorProfile,
    fsGroup: integer(),
    fsGroupChangePolicy: string(),
    runAsGroup: integer(),
    runAsNonRoot: boolean(),
    runAsUser: integer(),
    seLinuxChangePolicy: string(),
    seLinuxOptions,
    seccompProfile,
    supplementalGroups: arrayOf(integer(), { listType: 'atomic' }),
    supplementalGroupsPolicy: string(),
    sysctls: arrayOf(object({ name: string(), value: string() }, { required: ['name', 'value'] }), {
      listType: 'atomic',
    }),
    windowsOptions,
  },
  { description: 'Replaces the default pod security context of the helm Job pod.' },
);

export const securityContextSchema = object(
  {
    allowPrivilegeEscalation: boolean(),
    appArmorProfile,
    capabilities: object({
      add: arrayOf(string(), { listType: 'atomic' }),
      drop: arrayOf(string(), { listType: 'atomic' }),
    }),
    privileged: boolean(),
    procMount: string(),
    readOnlyRootFilesystem: boolean(),
    runAsGroup: integer(),
    runAsNonRoot: boolean(),
    runAsUser: integer(),
    seLinuxOptions,
    seccompProfile,
    windowsOptions,
  },
  { description: 'Replaces the default security context of the helm container.' },
);
