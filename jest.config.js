// Three projects so each layer can be run alone: unit (pure, fast), workflow (real Temporal dev server),
// e2e (the embedded Kubernetes stack). `npm test` runs all three.
const common = {
  preset: 'ts-jest/presets/default-esm',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
};

export default {
  testSequencer: '<rootDir>/jest.sequencer.js',
  // The e2e tests wait on a real cluster; each wait has its own, shorter deadline.
  testTimeout: 240_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    { ...common, displayName: 'workflow', testMatch: ['<rootDir>/test/workflow/**/*.test.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/test/e2e/global-setup.ts',
      globalTeardown: '<rootDir>/test/e2e/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/e2e/support/setup.ts'],
    },
  ],
};
