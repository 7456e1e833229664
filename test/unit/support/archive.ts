import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/** A gzipped tar of `files` (path → text or bytes), each path as given: a chart archive's paths start `<chart>/`. */
export async function tarGz(files: Record<string, string | Buffer>): Promise<Buffer> {
  const tar = pack();
  for (const [name, data] of Object.entries(files)) tar.entry({ name }, data);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/** A CustomResourceDefinition's YAML, `<plural>.<group>`, served at v1 with the given spec fields. */
export function crdYaml(plural: string, group = 'example.com', fields: string[] = ['size']): string {
  const properties = fields.map((f) => `                ${f}: { type: string }`).join('\n');
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
spec:
  group: ${group}
  scope: Namespaced
  names: { plural: ${plural}, singular: ${plural.replace(/s$/u, '')}, kind: ${plural[0]?.toUpperCase()}${plural.slice(1, -1)} }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
${properties}
`;
}
