import type { StackLayout } from '../devstack/layout.js';

export interface NativeNodeOptions {
  layout: StackLayout;
  nodeName: string;
  /** How often a pod whose binary is missing is checked again. */
  recheckSeconds: number;
  /** The node's CA bundle, handed to pod processes as SSL_CERT_FILE. */
  trustBundle?: string;
}

/** The node's identity as seen by pods and by the events it records. */
export const nodeComponent = 'helmflow-native-node';
