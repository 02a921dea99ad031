/**
 * One set of esbuild settings for the deployed bundles: serverless.yml hands `plugin` to
 * serverless-esbuild, bench/bundle.ts builds with `esbuild` directly.
 */
'use strict';

/** Plain esbuild options. ESM out; bundled CommonJS dependencies get a real `require`. */
const esbuild = {
  bundle: true,
  minify: true,
  sourcemap: false,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  mainFields: ['module', 'main'],
  // Everything is bundled, @aws-sdk/* included: the zip holds all the function needs.
  external: [],
  legalComments: 'none',
  banner: {
    js: "import{createRequire as __latchkeyRequire}from'node:module';const require=__latchkeyRequire(import.meta.url);",
  },
};

/** serverless-esbuild's options: the above plus the plugin's own. */
const plugin = {
  ...esbuild,
  outputFileExtension: '.mjs',
  // The plugin's default excludes "aws-sdk"; nothing is left out here.
  exclude: [],
  packager: 'npm',
  keepOutputDirectory: false,
};

module.exports = { esbuild, plugin };
