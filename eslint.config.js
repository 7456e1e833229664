import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // @kubernetes/client-node models are classes used as plain data; object literals are how they are built.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  // The production build bundles only what src/kube/k8s.ts exports of the Kubernetes client (it is most of the
  // compiled process's code otherwise), so a class or function taken from the package directly would load it all.
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/kube/k8s.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@kubernetes/client-node',
              message: 'import its classes and functions from src/kube/k8s.ts; types may come from the package',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  // Test fakes implement async interfaces with plain values.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/require-await': 'off' } },
  { files: ['*.js'], ...tseslint.configs.disableTypeChecked },
);
