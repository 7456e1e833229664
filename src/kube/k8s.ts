// The Kubernetes client's classes and functions, for helmflow's own code to import from here (its types may come
// from @kubernetes/client-node directly; eslint.config.js holds everyone to that). The package's index loads the
// code of every API group of Kubernetes; `npm run build` replaces this module's output with a bundle of only what
// is exported here (src/kube/bundle-client.ts), which keeps the other groups' code out of the compiled process.
export {
  ApiextensionsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  EventsV1Api,
  KubeConfig,
  KubernetesObjectApi,
  Log,
  Observable,
  PatchStrategy,
  RbacAuthorizationV1Api,
  makeInformer,
  setHeaderOptions,
} from '@kubernetes/client-node';
