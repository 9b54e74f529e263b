/** Unit suites run from source through SWC; the e2e suites spawn the built server (run `npm run build` first). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
    'node_modules/jose/.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // jose is an ES module only: SWC turns it into CommonJS for the unit suites of the OAuth token checks.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  testTimeout: 30000,
  // The default summary, then every skipped test and why (the run's last lines).
  reporters: ['default', '<rootDir>/test/helpers/skipped-reporter.js'],
};
