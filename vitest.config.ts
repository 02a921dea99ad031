import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // The AWS SDK's own switch for its Node-version warning (the start script sets it too): the
    // tests run on Node 20, and the children they spawn inherit this environment.
    env: { LOG_LEVEL: 'silent', AUDIT_DEVICES: 'none', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
