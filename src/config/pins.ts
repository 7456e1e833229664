import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The versions of the third-party tools, read from the one file that pins them (tools/pins.json). */
export interface Pins {
  kubernetes: string;
  etcd: string;
  temporal: string;
  /** The SQLite driver the Temporal CLI is built with, newer than the one it names (tools/build.sh says why). */
  'temporal-sqlite': string;
  helm: string;
}

/** The nearest directory above `from` with a package.json: the sources run from it, the compiled code from dist/ in it. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (dir === path.dirname(dir)) throw new Error(`no package.json above ${from}`);
  }
}

/** The repository (or the image's /app): where package.json, tools/pins.json and node_modules are. */
export const repoRoot = packageRoot(path.dirname(fileURLToPath(import.meta.url)));

export function readPins(): Pins {
  return JSON.parse(readFileSync(path.join(repoRoot, 'tools', 'pins.json'), 'utf8')) as Pins;
}

/** Where tools/build.sh puts its builds; HELMFLOW_CACHE moves it. */
export function cacheDir(): string {
  return process.env.HELMFLOW_CACHE ?? path.join(homedir(), '.cache', 'helmflow');
}

export interface ToolPaths {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubectl: string;
  helm: string;
  temporal: string;
}

export function toolPaths(pins: Pins = readPins()): ToolPaths {
  const tools = path.join(cacheDir(), 'tools');
  const k8s = path.join(tools, `kubernetes-${pins.kubernetes}`);
  return {
    etcd: path.join(tools, `etcd-${pins.etcd}`, 'etcd'),
    kubeApiserver: path.join(k8s, 'kube-apiserver'),
    kubeControllerManager: path.join(k8s, 'kube-controller-manager'),
    kubectl: path.join(k8s, 'kubectl'),
    helm: path.join(tools, `helm-${pins.helm}`, 'helm'),
    temporal: path.join(tools, `temporal-${pins.temporal}-sqlite-${pins['temporal-sqlite']}`, 'temporal'),
  };
}
