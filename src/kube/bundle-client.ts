// Build step (`npm run build`, after tsc): replaces the compiled src/kube/k8s.js with one file holding only what it
// exports of @kubernetes/client-node and the packages that needs. The package's index loads the code of every
// Kubernetes API group, kept in memory by V8 as source and compiled code; helmflow uses seven of its API classes.
// bench/README.md has what that saved (bench/many-charts.ts).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const client = path.join(here, 'k8s.js');
if (!here.split(path.sep).includes('dist'))
  throw new Error('bundle-client runs compiled: node dist/src/kube/bundle-client.js');
await build({
  entryPoints: [client],
  outfile: client,
  allowOverwrite: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Whitespace and syntax only: function and class names stay, for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  keepNames: true,
  // The package's CommonJS dependencies require node's own modules; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __helmflowRequire } from 'node:module'; const require = __helmflowRequire(import.meta.url);",
  },
  // whatwg-url and tr46 require "punycode", which node resolves to its own, deprecated module. Node 22 warns of that
  // on stderr unless the caller sits in node_modules, as a bundle in dist/ does not: take the npm package instead.
  alias: { punycode: 'punycode/' },
  // ws and node-fetch try these optional native helpers and go on without them.
  external: ['bufferutil', 'utf-8-validate', 'encoding'],
  logLevel: 'warning',
});
// tsc's source map describes the file this replaced.
rmSync(`${client}.map`, { force: true });
console.log(`helmflow: Kubernetes client bundled into ${client}`);
