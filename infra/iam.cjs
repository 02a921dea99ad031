/**
 * One IAM role per function, holding what that function's code calls and nothing else
 * (contract section 9); test/lambda/package.test.ts checks each role against the AWS calls
 * found in the function's packaged bundle.
 *
 * - DynamoDB: the lean client's operations (lib/store/dynamo-api.ts) on the table and its index.
 * - KMS, service key: GenerateDataKey and Decrypt, limited by the encryption context sealing
 *   binds to every data key (lib/keys/sealed.ts: {service: latchkey, scope: <partition>}): each
 *   function opens only its own engine's scopes, plus Decrypt of `sys` (the token HMAC key) for
 *   the functions that check tokens. A new sealing scope needs its entry in SCOPES.
 * - KMS, managed PKI keys (infra/settings.json managed_keys): Sign and GetPublicKey, pki and
 *   pki-tidy only, on exactly those key ARNs.
 * - Lambda: InvokeFunction for sys and the sweeper, on exactly the engine functions.
 * - Logs: the function's own log group.
 */
'use strict';
const { invokedFunctions, roleLogicalId } = require('./functions.cjs');
const { readSettings } = require('./settings.cjs');

const DYNAMO_ACTIONS = ['BatchGetItem', 'BatchWriteItem', 'DeleteItem', 'GetItem', 'Query', 'TransactWriteItems', 'UpdateItem'].map(
  (a) => `dynamodb:${a}`,
);

/**
 * Sealing scopes each function seals and opens (own), and whether it opens `sys` (token checks).
 * `wrapped` is response wrapping's scope (lib/sys/wrapping.ts WRAP_SCOPE): every function built
 * on the engine app may wrap a response; sys also unwraps. `audit` is the audit HMAC key's
 * (lib/audit/hasher.ts AUDIT_SCOPE): every function that serves HTTP records its requests.
 */
const SCOPES = {
  sys: { own: ['sys', 'wrapped', 'audit'], tokens: false },
  sweeper: { own: ['sys'], tokens: false },
  catalog: { own: ['catalog', 'audit'], tokens: true },
  pki: { own: ['pki/*', 'wrapped', 'audit'], tokens: true },
  'pki-tidy': { own: ['pki/*'], tokens: false },
  ssh: { own: ['ssh/*', 'wrapped', 'audit'], tokens: true },
  'ssh-tidy': { own: ['ssh/*'], tokens: false },
  'cloud-a': { own: ['cloud-a/*', 'wrapped', 'audit'], tokens: true },
  'cloud-a-rotate': { own: ['cloud-a/*'], tokens: false },
  'cloud-b': { own: ['cloud-b/*', 'wrapped', 'audit'], tokens: true },
  kv: { own: ['kv/*', 'wrapped', 'audit'], tokens: true },
};
const SIGNERS = ['pki', 'pki-tidy'];
const INVOKERS = ['sys', 'sweeper'];

const sub = (s) => ({ 'Fn::Sub': s });
const functionArn = (name) => sub(`arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:\${AWS::StackName}-${name}`);
const logGroupArn = (name) =>
  sub(`arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/\${AWS::StackName}-${name}:*`);
const sealing = (actions, scopes, keyArn) => ({
  Effect: 'Allow',
  Action: actions,
  Resource: [keyArn],
  Condition: { StringEquals: { 'kms:EncryptionContext:service': 'latchkey' }, StringLike: { 'kms:EncryptionContext:scope': scopes } },
});

/** The statements of one function's role. */
function statementsFor(name, arns, settings = readSettings(), invoked = invokedFunctions()) {
  const scopes = SCOPES[name];
  if (!scopes) throw new Error(`infra/iam.cjs: no sealing scopes declared for function ${name}`);
  const out = [
    { Effect: 'Allow', Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Resource: [logGroupArn(name)] },
    { Effect: 'Allow', Action: DYNAMO_ACTIONS, Resource: [arns.table, arns.index] },
    sealing(['kms:GenerateDataKey', 'kms:Decrypt'], scopes.own, arns.key),
  ];
  if (scopes.tokens) out.push(sealing(['kms:Decrypt'], ['sys'], arns.key));
  const managed = Object.values(settings.managedKeys).map((k) => k.key_id);
  if (SIGNERS.includes(name) && managed.length)
    out.push({ Effect: 'Allow', Action: ['kms:Sign', 'kms:GetPublicKey'], Resource: [...new Set(managed)] });
  if (INVOKERS.includes(name) && invoked.length)
    out.push({ Effect: 'Allow', Action: ['lambda:InvokeFunction'], Resource: invoked.map(functionArn) });
  return out;
}

/** AWS::IAM::Role resources, one per function name. */
function roleResources(functionNames, arns, settings = readSettings()) {
  const out = {};
  for (const name of functionNames) {
    out[roleLogicalId(name)] = {
      Type: 'AWS::IAM::Role',
      Properties: {
        Description: `Latchkey ${name}: what this function calls, nothing else`,
        AssumeRolePolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        },
        Policies: [
          { PolicyName: `latchkey-${name}`, PolicyDocument: { Version: '2012-10-17', Statement: statementsFor(name, arns, settings) } },
        ],
      },
    };
  }
  return out;
}

module.exports = { SCOPES, DYNAMO_ACTIONS, statementsFor, roleResources };
