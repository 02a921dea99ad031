/**
 * The DynamoDB table as a CloudFormation resource, built from the one definition in
 * lib/store/table.ts (the shape the embedded store and the tests create): that file is
 * compiled with esbuild at packaging time and evaluated here, so nothing is copied.
 */
'use strict';
const { readFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const { transformSync } = require('esbuild');

const SOURCE = join(__dirname, '..', 'lib', 'store', 'table.ts');

/** The exports of lib/store/table.ts (its imports are type-only, so it compiles standalone). */
function loadTableDefinition() {
  const { code } = transformSync(readFileSync(SOURCE, 'utf8'), { loader: 'ts', format: 'cjs', sourcefile: SOURCE });
  const mod = new Module(SOURCE);
  mod.filename = SOURCE;
  mod.paths = Module._nodeModulePaths(join(__dirname, '..'));
  mod._compile(code, SOURCE);
  return mod.exports;
}

const { tableKeySchema, INDEX_NAME } = loadTableDefinition();

/**
 * CreateTable's input and AWS::DynamoDB::Table share their property names (AttributeDefinitions,
 * KeySchema, GlobalSecondaryIndexes, BillingMode), so the key schema goes over as it is.
 */
function tableResource() {
  return {
    Type: 'AWS::DynamoDB::Table',
    // Secrets, tokens and leases live here: never drop it with the stack or on a replacement.
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      ...structuredClone(tableKeySchema),
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      // KMS server-side encryption with the AWS-managed DynamoDB key; stored secrets are
      // sealed again with the service key (lib/keys/sealed.ts).
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
      Tags: [{ Key: 'service', Value: 'latchkey' }],
    },
  };
}

module.exports = { tableKeySchema, INDEX_NAME, tableResource };
