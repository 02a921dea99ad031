/**
 * The stateful resources pulled into serverless.yml: the table (from lib/store/table.ts), the
 * KMS key with its alias, and the IAM statements that reach exactly those two.
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

const { invokedFunctions } = require('./functions.cjs');

/** sys and the sweeper invoke the engine functions, and only those (lib/remote-engines.ts). */
const functionArn = (name) => ({ 'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:\${AWS::StackName}-${name}` });
const invoked = invokedFunctions();

const statements = [
  {
    Effect: 'Allow',
    Action: [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:DeleteItem',
      'dynamodb:Query',
      'dynamodb:BatchWriteItem',
      'dynamodb:DescribeTable',
    ],
    Resource: [tableArn, indexArn],
  },
  {
    Effect: 'Allow',
    Action: ['kms:GenerateDataKey', 'kms:Decrypt', 'kms:Encrypt', 'kms:Sign', 'kms:GetPublicKey', 'kms:DescribeKey'],
    Resource: [keyArn],
  },
  ...(invoked.length ? [{ Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: invoked.map(functionArn) }] : []),
];

const environment = {
  TABLE_NAME: { Ref: TABLE },
  KMS_KEY_ID: keyArn,
  LOG_LEVEL: 'info',
};

module.exports = {
  names: { table: TABLE, key: KEY, alias: ALIAS },
  statements,
  environment,
  resources: {
    Resources: {
      [TABLE]: tableResource(),
      [KEY]: keyResource(),
      [ALIAS]: aliasResource(),
    },
    Outputs: {
      TableName: { Value: { Ref: TABLE } },
      KeyArn: { Value: keyArn },
      KeyAlias: { Value: { Ref: ALIAS } },
    },
  },
};
