/**
 * The deployment as packaged offline (`npm run package`, no AWS account): the CloudFormation
 * template serverless.yml produces and the zips beside it. Expectations come from the code
 * the service runs (infra/mounts.json through lib/config.ts, lib/routing.ts, lib/store/table.ts),
 * not from infra/'s generators, so the two are checked against each other.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { MOUNTS } from '../../lib/config';
import { functionFor } from '../../lib/routing';
import { INDEX_NAME, tableKeySchema } from '../../lib/store/table';
import { describeBundles } from '../deploy/bundles-e2e';
import { cfnLint } from '../helpers/cfn-lint';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(ROOT, '.serverless');
const MB = 1024 * 1024;

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
}
interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

let template: unknown;
let resources: Record<string, Resource>;
let outputs: Record<string, { Value: unknown }>;
/** Each function's bundle as packaged (functions/<name>.mjs in <name>.zip). */
const bundles = new Map<string, string>();

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '--silent', 'package'], { cwd: ROOT, maxBuffer: 16 * MB, timeout: 280_000 });
  const parsed = JSON.parse(readFileSync(join(OUT, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, Resource>;
    Outputs: Record<string, { Value: unknown }>;
  };
  template = parsed;
  resources = parsed.Resources;
  outputs = parsed.Outputs;
  for (const fn of expectedFunctions()) {
    bundles.set(fn, execFileSync('unzip', ['-p', join(OUT, `${fn}.zip`), `functions/${fn}.mjs`], { maxBuffer: 16 * MB }).toString('utf8'));
  }
}, 300_000);

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const one = (type: string): [string, Resource] => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const hasSource = (name: string) => existsSync(join(ROOT, 'functions', `${name}.ts`));

/** What should be deployed, from the mounts and the function files that exist. */
function expectedRoutes(): Map<string, string> {
  const routes = new Map<string, string>([
    ['ANY /v1/sys/{proxy+}', 'sys'],
    ['ANY /v1/auth/{proxy+}', 'sys'],
  ]);
  for (const m of MOUNTS) if (hasSource(m.type)) routes.set(`ANY /v1/${m.path}/{proxy+}`, m.type);
  if (hasSource('catalog'))
    for (const p of ['kv', 'catalog', 'agent', 'health', 'status', 'session', 'event']) routes.set(`ANY /v1/${p}/{proxy+}`, 'catalog');
  return routes;
}
const expectedFunctions = () =>
  [
    ...new Set([
      ...expectedRoutes().values(),
      'sweeper',
      ...(hasSource('pki-tidy') ? ['pki-tidy'] : []),
      ...(hasSource('ssh-tidy') ? ['ssh-tidy'] : []),
      ...(hasSource('cloud-a-rotate') ? ['cloud-a-rotate'] : []),
    ]),
  ].sort();

/** serverless' logical ids: "sys" -> "Sys", "cloud-a" -> "CloudDasha". */
const logicalName = (fn: string) => fn.charAt(0).toUpperCase() + fn.slice(1).replace(/-/g, 'Dash');
const functionOfLogicalId = (id: string) => expectedFunctions().find((f) => `${logicalName(f)}LambdaFunction` === id);

describe('the table', () => {
  it('is the one definition of lib/store/table.ts, on demand, with PITR and SSE', () => {
    const [, table] = one('AWS::DynamoDB::Table');
    const p = table.Properties;
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.SSESpecification).toMatchObject({ SSEEnabled: true, SSEType: 'KMS' });
    expect(p.KeySchema).toEqual([
      { AttributeName: 'pk', KeyType: 'HASH' },
      { AttributeName: 'sk', KeyType: 'RANGE' },
    ]);
    expect(p.KeySchema).toEqual(tableKeySchema.KeySchema);
    expect(p.AttributeDefinitions).toEqual(tableKeySchema.AttributeDefinitions);
    expect(p.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: INDEX_NAME,
        KeySchema: [
          { AttributeName: 'ipk', KeyType: 'HASH' },
          { AttributeName: 'isk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ]);
    expect(INDEX_NAME).toBe('index1');
    expect(table.DeletionPolicy).toBe('Retain');
  });
});

describe('the KMS key', () => {
  it('is symmetric, rotated, retained and aliased', () => {
    const [keyId, key] = one('AWS::KMS::Key');
    expect(key.Properties).toMatchObject({ KeySpec: 'SYMMETRIC_DEFAULT', KeyUsage: 'ENCRYPT_DECRYPT', EnableKeyRotation: true });
    expect(key.DeletionPolicy).toBe('Retain');
    const [, alias] = one('AWS::KMS::Alias');
    expect(alias.Properties.TargetKeyId).toEqual({ Ref: keyId });
  });
});

describe('the functions', () => {
  it('are sys, one per engine type with a function file, the catalog when it exists, and the sweeper', () => {
    const deployed = ofType('AWS::Lambda::Function').map(([id]) => functionOfLogicalId(id) ?? id);
    expect(deployed.sort()).toEqual(expectedFunctions());
  });

  it('run nodejs22.x on arm64 with their handler, the table and the key, and no local settings', () => {
    const [tableId] = one('AWS::DynamoDB::Table');
    const [keyId] = one('AWS::KMS::Key');
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const name = functionOfLogicalId(id)!;
      const p = fn.Properties as {
        Runtime: string;
        Architectures: string[];
        Handler: string;
        Environment: { Variables: Record<string, unknown> };
      };
      expect(p.Runtime, id).toBe('nodejs22.x');
      expect(p.Architectures, id).toEqual(['arm64']);
      expect(p.Handler, id).toBe(`functions/${name}.handler`);
      const env = p.Environment.Variables;
      expect(env.TABLE_NAME).toEqual({ Ref: tableId });
      expect(env.KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      expect(env.LOG_LEVEL).toBe('info');
      for (const local of ['DYNAMODB_ENDPOINT', 'LOCAL_KEY_FILE', 'KMS_ENDPOINT', 'DATA_DIR', 'LAMBDA_ENDPOINT'])
        expect(env).not.toHaveProperty(local);
      // sys and the sweeper know the engine functions they invoke, by deployed name.
      if (name === 'sys' || name === 'sweeper') {
        const invoked = expectedFunctions().filter((f) => !['sys', 'sweeper', ...SCHEDULED].includes(f));
        const sub = (env.LATCHKEY_FUNCTIONS as { 'Fn::Sub': string })['Fn::Sub'];
        expect(JSON.parse(sub)).toEqual(Object.fromEntries(invoked.map((f) => [f, `\${AWS::StackName}-${f}`])));
      } else expect(env).not.toHaveProperty('LATCHKEY_FUNCTIONS');
      // Bundles ship without source maps, so the flag would only cost start-up time.
      expect(env).not.toHaveProperty('NODE_OPTIONS');
    }
  });

  it('have one zip each, under 1 MB, holding the bundled handler and no node_modules', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      const name = functionOfLogicalId(id)!;
      const zip = join(OUT, basename((fn.Properties.Code as { S3Key: string }).S3Key));
      expect(zip).toBe(join(OUT, `${name}.zip`));
      expect(existsSync(zip), zip).toBe(true);
      expect(statSync(zip).size, zip).toBeLessThan(MB);
      const bytes = readFileSync(zip);
      expect(bytes.includes(`functions/${name}.mjs`), zip).toBe(true);
      expect(bytes.includes('node_modules/'), zip).toBe(false);
    }
  });
});

describe('the HTTP API', () => {
  it('routes every mount whose engine function exists, and sys/auth, to that function', () => {
    const integrations = new Map(
      ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [
        id,
        (r.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0],
      ]),
    );
    const routes = new Map<string, string>();
    for (const [, r] of ofType('AWS::ApiGatewayV2::Route')) {
      const target = r.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
      const fnId = integrations.get(target['Fn::Join'][1][1].Ref)!;
      routes.set(r.Properties.RouteKey as string, functionOfLogicalId(fnId) ?? fnId);
    }
    expect(Object.fromEntries(routes)).toEqual(Object.fromEntries(expectedRoutes()));
    for (const [key, fn] of routes) {
      // The local server's rule (lib/routing.ts) sends the same paths to the same function.
      const path = key.replace(/^ANY /, '').replace('{proxy+}', 'x');
      expect(functionFor(path, MOUNTS), key).toBe(fn);
    }
    const [, api] = one('AWS::ApiGatewayV2::Api');
    expect(api.Properties.ProtocolType).toBe('HTTP');
    for (const [, i] of ofType('AWS::ApiGatewayV2::Integration')) expect(i.Properties.PayloadFormatVersion).toBe('2.0');
  });
});

describe('the sweeper schedule', () => {
  it('invokes the sweeper every minute', () => {
    const [ruleId, rule] = ofType('AWS::Events::Rule').find(([, r]) =>
      JSON.stringify(r.Properties.Targets).includes('SweeperLambdaFunction'),
    )!;
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': ['SweeperLambdaFunction', 'Arn'] } })]);
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'events.amazonaws.com');
    expect(permissions.map(([, p]) => p.Properties.SourceArn)).toContainEqual({ 'Fn::GetAtt': [ruleId, 'Arn'] });
  });
});

/** The AWS calls a bundle can make: the operation names its clients send, and Lambda Invoke. */
const DYNAMO_OPERATIONS = [
  'BatchGetItem',
  'BatchWriteItem',
  'CreateTable',
  'DeleteItem',
  'DescribeTable',
  'GetItem',
  'PutItem',
  'Query',
  'Scan',
  'TransactGetItems',
  'TransactWriteItems',
  'UpdateItem',
];
const KMS_OPERATIONS = ['Decrypt', 'DescribeKey', 'Encrypt', 'GenerateDataKey', 'GetPublicKey', 'ReEncrypt', 'Sign', 'Verify'];
function callsOf(bundle: string): string[] {
  const quoted = (op: string) => bundle.includes(`"${op}"`) || bundle.includes(`'${op}'`);
  return [
    ...DYNAMO_OPERATIONS.filter(quoted).map((op) => `dynamodb:${op}`),
    ...KMS_OPERATIONS.filter(quoted).map((op) => `kms:${op}`),
    ...(bundle.includes('/2015-03-31/functions/') ? ['lambda:InvokeFunction'] : []),
  ].sort();
}

/**
 * The sealing scopes (lib/keys/sealed.ts) each function seals under: its engine's partitions
 * (lib/<engine>/), `wrapped` for every function that serves requests through the engine app
 * (response wrapping may wrap any of its answers; sys also unwraps), and `audit` (the audit HMAC
 * key) for every function that serves HTTP.
 */
const OWN_SCOPES: Record<string, string[]> = {
  sys: ['sys', 'wrapped', 'audit'],
  sweeper: ['sys'],
  catalog: ['catalog', 'audit'],
  pki: ['pki/*', 'wrapped', 'audit'],
  'pki-tidy': ['pki/*'],
  ssh: ['ssh/*', 'wrapped', 'audit'],
  'ssh-tidy': ['ssh/*'],
  'cloud-a': ['cloud-a/*', 'wrapped', 'audit'],
  'cloud-a-rotate': ['cloud-a/*'],
  'cloud-b': ['cloud-b/*', 'wrapped', 'audit'],
  kv: ['kv/*', 'wrapped', 'audit'],
};
const SCHEDULED = ['sweeper', 'pki-tidy', 'ssh-tidy', 'cloud-a-rotate'];
const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

describe('the IAM roles', () => {
  const roleOf = (fnId: string) => (resources[fnId]!.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const statementsOf = (roleId: string) =>
    (resources[roleId]!.Properties.Policies as { PolicyDocument: { Statement: (Statement & { Condition?: unknown })[] } }[]).flatMap(
      (p) => p.PolicyDocument.Statement,
    );

  it('are one per function, trusted by Lambda only, no managed policies, no shared role', () => {
    const fns = ofType('AWS::Lambda::Function');
    const roles = new Set(fns.map(([id]) => roleOf(id)));
    expect(roles.size).toBe(fns.length);
    expect(ofType('AWS::IAM::Role')).toHaveLength(fns.length);
    expect(ofType('AWS::IAM::Policy')).toEqual([]);
    for (const role of roles) {
      const p = resources[role]!.Properties;
      expect(p).not.toHaveProperty('ManagedPolicyArns');
      expect(JSON.stringify(p.AssumeRolePolicyDocument)).toBe(
        JSON.stringify({
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
        }),
      );
    }
  });

  it("hold exactly the calls each function's bundle makes, on the table, the key by sealing scope, and the engine functions", () => {
    const [tableId] = one('AWS::DynamoDB::Table');
    const [keyId] = one('AWS::KMS::Key');
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };
    const invoked = expectedFunctions().filter((f) => !['sys', ...SCHEDULED].includes(f));
    for (const [id] of ofType('AWS::Lambda::Function')) {
      const name = functionOfLogicalId(id)!;
      const statements = statementsOf(roleOf(id));
      for (const s of statements) {
        expect(s.Effect).toBe('Allow');
        for (const r of list(s.Resource)) expect(r, JSON.stringify(s)).not.toBe('*');
        for (const a of list(s.Action)) expect(a).not.toMatch(/\*/);
      }
      const granted = statements.flatMap((s) => list(s.Action)).filter((a) => !a.startsWith('logs:'));
      // Sign/GetPublicKey are granted only on configured managed keys (infra/settings.json: none).
      const used = callsOf(bundles.get(name)!).filter((a) => a !== 'kms:Sign' && a !== 'kms:GetPublicKey');
      expect([...new Set(granted)].sort(), name).toEqual(used);
      expect(used, name).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'kms:Decrypt']));

      const on = (action: string) => statements.filter((s) => list(s.Action).includes(action));
      expect(on('dynamodb:GetItem').map((s) => s.Resource)).toEqual([[tableArn, { 'Fn::Join': ['/', [tableArn, 'index', '*']] }]]);
      const sealing = on('kms:GenerateDataKey');
      expect(sealing.map((s) => [s.Resource, s.Condition])).toEqual([
        [
          [keyArn],
          {
            StringEquals: { 'kms:EncryptionContext:service': 'latchkey' },
            StringLike: { 'kms:EncryptionContext:scope': OWN_SCOPES[name] },
          },
        ],
      ]);
      // Functions that check tokens open the token HMAC key (scope sys), and only open it.
      const opens = on('kms:Decrypt').flatMap((s) =>
        list((s.Condition as { StringLike: Record<string, string[]> }).StringLike['kms:EncryptionContext:scope']!),
      );
      expect(opens.sort(), name).toEqual(
        [...new Set([...OWN_SCOPES[name]!, ...(SCHEDULED.includes(name) || name === 'sys' ? [] : ['sys'])])].sort(),
      );
      const invoke = on('lambda:InvokeFunction');
      if (name === 'sys' || name === 'sweeper') {
        expect(
          invoke
            .flatMap((s) => list(s.Resource))
            .map((r) => JSON.stringify(r))
            .sort(),
        ).toEqual(
          invoked
            .map((f) =>
              JSON.stringify({
                'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:\${AWS::StackName}-${f}`,
              }),
            )
            .sort(),
        );
      } else expect(invoke).toEqual([]);
      // The function's own log group, nothing else.
      const logs = statements.filter((s) => list(s.Action).some((a) => a.startsWith('logs:')));
      expect(logs.flatMap((s) => list(s.Resource))).toEqual([
        { 'Fn::Sub': `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/\${AWS::StackName}-${name}:*` },
      ]);
    }
  });

  it('leave managed PKI keys ungranted and MANAGED_KEYS unset by default', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) {
      expect((fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables, id).not.toHaveProperty('MANAGED_KEYS');
      expect(JSON.stringify(statementsOf(roleOf(id)))).not.toMatch(/kms:Sign|kms:GetPublicKey/);
    }
  });
});

describe('the HTTP API stage', () => {
  it('is throttled and writes a JSON access log with the request id', () => {
    const [, stage] = one('AWS::ApiGatewayV2::Stage');
    expect(stage.Properties.DefaultRouteSettings).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 });
    const access = stage.Properties.AccessLogSettings as { DestinationArn: { 'Fn::GetAtt': [string, string] }; Format: string };
    const format = JSON.parse(access.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', route: '$context.routeKey' });
    expect(access.Format).not.toMatch(/querystring|rawQueryString|header/i);
    const group = resources[access.DestinationArn['Fn::GetAtt'][0]]!;
    expect(group.Type).toBe('AWS::Logs::LogGroup');
    expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('leaves reserved concurrency unset by default (a setting) and names the sys function for `npm run admin`', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function')) expect(fn.Properties, id).not.toHaveProperty('ReservedConcurrentExecutions');
    expect(outputs.SysFunctionName!.Value).toEqual({ 'Fn::Sub': '${AWS::StackName}-sys' });
  });
});

/** What test/deploy/observability.test.ts checks from the generators, here as packaged. */
describe('the alarms and the dashboard', () => {
  const sub = (v: unknown) => ((v as { 'Fn::Sub': string })['Fn::Sub'] ?? '').replaceAll('${AWS::StackName}', 'latchkey-dev');

  it('are in the stack: the topic every alarm notifies, the dashboard, and their outputs', () => {
    const [topicId] = one('AWS::SNS::Topic');
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms.length).toBe(5 + 3 * expectedFunctions().length);
    for (const [id, a] of alarms) {
      expect(a.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
      expect(a.Properties.OKActions, id).toEqual([{ Ref: topicId }]);
    }
    const [dashboardId, dashboard] = one('AWS::CloudWatch::Dashboard');
    expect(sub(dashboard.Properties.DashboardBody)).toContain('latchkey-dev-sys');
    expect(outputs.AlarmTopicArn!.Value).toEqual({ Ref: topicId });
    expect(outputs.DashboardName!.Value).toEqual({ Ref: dashboardId });
  });

  it('watch the functions and the HTTP API the framework made, by their deployed names and id', () => {
    const deployed = ofType('AWS::Lambda::Function').map(([, f]) => f.Properties.FunctionName);
    const [apiId] = one('AWS::ApiGatewayV2::Api');
    for (const [id, a] of ofType('AWS::CloudWatch::Alarm')) {
      const p = a.Properties as {
        Dimensions?: { Name: string; Value: unknown }[];
        Metrics?: { MetricStat?: { Metric: { Dimensions?: unknown[] } } }[];
      };
      const dims = [...(p.Dimensions ?? []), ...(p.Metrics ?? []).flatMap((q) => q.MetricStat?.Metric.Dimensions ?? [])] as {
        Name: string;
        Value: unknown;
      }[];
      for (const d of dims) {
        if (d.Name === 'FunctionName') expect(deployed, id).toContain(sub(d.Value));
        else expect(d, id).toEqual({ Name: 'ApiId', Value: { Ref: apiId } });
      }
    }
  });

  it('pass cfn-lint, as does the whole template (test/helpers/cfn-lint.ts: its specification brought up to date)', () => {
    const result = cfnLint(template);
    expect(result.errors.crit).toEqual([]);
    expect(result.errors.warn).toEqual([]);
  });
});

// The deploy walkthrough on these same zips (no second packaging).
describeBundles(() => OUT);
