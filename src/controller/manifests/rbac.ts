import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1Role,
  V1RoleBinding,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import { stringify } from 'yaml';
import { HELM_CHART_CONFIG_PLURAL, HELM_CHART_PLURAL, type ApiGroup } from '../../api/group.js';

/**
 * The auto-deploy directory's identity (test/e2e/seed-coverage.md, "Job Identity"): files dropped there are applied as this
 * ServiceAccount, which may create HelmCharts and nothing much else. A HelmChart's Job runs as cluster-admin,
 * so whoever can write the directory can install anything; the identity keeps the directory from being a way
 * to create other objects directly, and the directory check keeps it root's.
 */
export const MANIFEST_IDENTITY_NAME = 'k3sm-manifest-helm';
export const MANIFEST_IDENTITY_NAMESPACE = 'kube-system';
/** Where its Warning Events go (a Role there lets it write them, and nowhere else). */
export const MANIFEST_EVENTS_NAMESPACE = 'kube-system';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'helmflow' };

/** May apply (server-side: patch, or create) HelmCharts and HelmChartConfigs of `group`, and create namespaces. */
export function manifestClusterRole(group: ApiGroup): V1ClusterRole {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: { name: MANIFEST_IDENTITY_NAME, labels: MANAGED_BY },
    rules: [
      {
        apiGroups: [group],
        resources: [HELM_CHART_PLURAL, HELM_CHART_CONFIG_PLURAL],
        verbs: ['create', 'get', 'list', 'patch', 'update'],
      },
      // Only create: a manifest can bring its target namespace into being, never relabel an existing one.
      { apiGroups: [''], resources: ['namespaces'], verbs: ['create', 'get'] },
    ],
  };
}

export function manifestServiceAccount(): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: MANIFEST_IDENTITY_NAME, namespace: MANIFEST_IDENTITY_NAMESPACE, labels: MANAGED_BY },
  };
}

export function manifestClusterRoleBinding(): V1ClusterRoleBinding {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name: MANIFEST_IDENTITY_NAME, labels: MANAGED_BY },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: MANIFEST_IDENTITY_NAME },
    subjects: [{ kind: 'ServiceAccount', name: MANIFEST_IDENTITY_NAME, namespace: MANIFEST_IDENTITY_NAMESPACE }],
  };
}

/** Lets the identity report a broken file as an Event in kube-system. */
export function manifestEventsRole(): V1Role {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'Role',
    metadata: { name: MANIFEST_IDENTITY_NAME, namespace: MANIFEST_EVENTS_NAMESPACE, labels: MANAGED_BY },
    rules: [{ apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create'] }],
  };
}

export function manifestEventsRoleBinding(): V1RoleBinding {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'RoleBinding',
    metadata: { name: MANIFEST_IDENTITY_NAME, namespace: MANIFEST_EVENTS_NAMESPACE, labels: MANAGED_BY },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: MANIFEST_IDENTITY_NAME },
    subjects: [{ kind: 'ServiceAccount', name: MANIFEST_IDENTITY_NAME, namespace: MANIFEST_IDENTITY_NAMESPACE }],
  };
}

export type ManifestRbacObject = V1ClusterRole | V1ServiceAccount | V1ClusterRoleBinding | V1Role | V1RoleBinding;

/** Everything the identity needs, in the order it can be applied. */
export function manifestIdentityObjects(group: ApiGroup): ManifestRbacObject[] {
  return [
    manifestServiceAccount(),
    manifestClusterRole(group),
    manifestClusterRoleBinding(),
    manifestEventsRole(),
    manifestEventsRoleBinding(),
  ];
}

/** Where the identity's objects are committed for a group, relative to the repository root. */
export function manifestRbacFilePath(group: ApiGroup): string {
  return group === 'helm.k3sm.io' ? 'deploy/rbac/manifest-role.yaml' : `deploy/rbac/manifest-role.${group}.yaml`;
}

/** The committed text; a unit test keeps the files and this function in step. */
export function renderManifestRbacYaml(group: ApiGroup): string {
  const header =
    `# The auto-deploy directory's identity (ClusterRole ${MANIFEST_IDENTITY_NAME}) for ${group}.\n` +
    `# Generated from src/controller/manifests/rbac.ts (UPDATE_GOLDEN=1 npm run test:unit rewrites it). Do not edit.\n`;
  return (
    header +
    manifestIdentityObjects(group)
      .map((o) => `---\n${stringify(o, { lineWidth: 0, singleQuote: true })}`)
      .join('')
  );
}
