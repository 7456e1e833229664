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
  // Test fakes implement async interfaces with plain values.
  { files: ['test/**/*.ts'], rules: { '@typescript-eslint/require-await': 'off' } },
  { files: ['*.js'], ...tseslint.configs.disableTypeChecked },
);
