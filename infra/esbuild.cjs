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
  // Everything is bundled, @aws-sdk/* included: the zip holds all the function needs. Native
  // addons (ssh2's optional crypto binding, cpu-features) are left out: their packages load them
  // in a try/catch and fall back to JavaScript, which is what runs on Lambda.
  external: ['*.node'],
  legalComments: 'none',
  banner: {
    // CommonJS dependencies bundled into ESM still expect require, __filename and __dirname.
    js:
      "import{createRequire as __lkRequire}from'node:module';import{fileURLToPath as __lkPath}from'node:url';import{dirname as __lkDir}from'node:path';" +
      'const require=__lkRequire(import.meta.url);const __filename=__lkPath(import.meta.url);const __dirname=__lkDir(__filename);',
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
  // One build per function, no esbuild rebuild context: the plugin disposes its contexts only
  // after a successful packaging, so after a failure (a build error, a failing `npm ls`) a live
  // context kept the process, and `npm run package`, running forever.
  skipRebuild: true,
};

module.exports = { esbuild, plugin };
