/**
 * The resources pulled into serverless.yml: the table (from lib/store/table.ts), the KMS key with
 * its alias, one IAM role per function (infra/iam.cjs), the HTTP API's throttling and JSON
 * access log, and the alarms, their topic and the dashboard (infra/observability.cjs), all as
 * infra/settings.json says.
 */
'use strict';
const { tableResource } = require('./table.cjs');

const TABLE = 'LatchkeyTable';
const KEY = 'LatchkeyKey';
const ALIAS = 'LatchkeyKeyAlias';

const tableArn = { 'Fn::GetAtt': [TABLE, 'Arn'] };
const indexArn = { 'Fn::Join': ['/', [{ 'Fn::GetAtt': [TABLE, 'Arn'] }, 'index', '*']] };
const keyArn = { 'Fn::GetAtt': [KEY, 'Arn'] };

function keyResource() {
  return {
    Type: 'AWS::KMS::Key',
    // Losing this key loses every sealed secret.
    DeletionPolicy: 'Retain',
    UpdateReplacePolicy: 'Retain',
    Properties: {
      Description: 'Latchkey: envelope encryption of stored secrets',
      KeySpec: 'SYMMETRIC_DEFAULT',
      KeyUsage: 'ENCRYPT_DECRYPT',
      EnableKeyRotation: true,
      PendingWindowInDays: 30,
      // The default key policy: the account administers it through IAM. In a key policy
      // "Resource": "*" means this key; the functions' access comes from their role below.
      KeyPolicy: {
        Version: '2012-10-17',
        Statement: [
          {
            Sid: 'AccountAdministersThroughIam',
            Effect: 'Allow',
            Principal: { AWS: { 'Fn::Sub': 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root' } },
            Action: 'kms:*',
            Resource: '*',
          },
        ],
      },
    },
  };
}

function aliasResource() {
  return {
    Type: 'AWS::KMS::Alias',
    Properties: {
      AliasName: { 'Fn::Sub': 'alias/${AWS::StackName}' },
      TargetKeyId: { Ref: KEY },
    },
  };
}

const { buildFunctions } = require('./functions.cjs');
const { roleResources } = require('./iam.cjs');
const { observabilityResources } = require('./observability.cjs');
const { readSettings } = require('./settings.cjs');

const settings = readSettings();
const observability = observabilityResources(buildFunctions(), settings);

/**
 * The HTTP API's JSON access log: API Gateway's request id (`requestId`), which the function's
 * `gateway` log line pairs with Latchkey's own `request_id` (lib/lambda.ts). The path, never the
 * query string (the catalog's deprecated ?token= lives there).
 */
const accessLogFormat = JSON.stringify({
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  route: '$context.routeKey',
  path: '$context.path',
  status: '$context.status',
  bytes: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  lambdaRequestId: '$context.integration.requestId',
  integrationStatus: '$context.integration.status',
  error: '$context.error.message',
});

/** Stage throttling and access-log retention, laid over what the framework generates. */
const extensions = {
  HttpApiStage: {
    Properties: {
      DefaultRouteSettings: {
        DetailedMetricsEnabled: false,
        ThrottlingRateLimit: settings.throttle.rateLimit,
        ThrottlingBurstLimit: settings.throttle.burstLimit,
      },
    },
  },
  HttpApiLogGroup: { Properties: { RetentionInDays: settings.accessLogRetentionDays } },
};

const environment = {
  TABLE_NAME: { Ref: TABLE },
  KMS_KEY_ID: keyArn,
  LOG_LEVEL: 'info',
};

module.exports = {
  names: { table: TABLE, key: KEY, alias: ALIAS },
  environment,
  accessLog: { format: accessLogFormat },
  resources: {
    Resources: {
      [TABLE]: tableResource(),
      [KEY]: keyResource(),
      [ALIAS]: aliasResource(),
      ...roleResources(Object.keys(buildFunctions()), { table: tableArn, index: indexArn, key: keyArn }, settings),
      ...observability.Resources,
    },
    extensions,
    Outputs: {
      TableName: { Value: { Ref: TABLE } },
      KeyArn: { Value: keyArn },
      KeyAlias: { Value: { Ref: ALIAS } },
      // What `npm run admin -- init --function <name>` invokes.
      SysFunctionName: { Value: { 'Fn::Sub': '${AWS::StackName}-sys' } },
      // AlarmTopicArn and DashboardName, when those are on.
      ...observability.Outputs,
    },
  },
};
