// npm run build:cli: the latchkey CLI as one self-contained ES module, dist/latchkey.mjs, run with `node dist/latchkey.mjs`.
import { build } from 'esbuild';

await build({
  entryPoints: ['lib/cli/bin.ts'],
  outfile: 'dist/latchkey.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: false,
  legalComments: 'none',
  // CommonJS parts of the AWS SDK call require(): give the ES module one.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __latchkeyRequire } from 'node:module';\nconst require = __latchkeyRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
