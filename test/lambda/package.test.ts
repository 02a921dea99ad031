/**
 * The deployment as packaged offline (`npm run package`, no AWS account): the CloudFormation
 * template serverless.yml produces and the zips beside it. Expectations come from the code
 * the service runs (infra/mounts.json through lib/config.ts, lib/routing.ts, lib/store/table.ts),
 * not from infra/'s generators, so the two are checked against each other.
 */
import { DYNAMO_OPERATIONS } from '../../lib/store/dynamo-api';
import { KMS_SEALING_OPERATIONS } from '../../lib/keys/kms-api';
import { build } from 'esbuild';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { MOUNTS } from '../../lib/config';
import { functionFor } from '../../lib/routing';
import { INDEX_NAME, tableKeySchema } from '../../lib/store/table';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = join(ROOT, '.serverless');
const MB = 1024 * 1024;
const esbuildSettings = (createRequire(import.meta.url)('../../infra/esbuild.cjs') as { esbuild: Record<string, unknown> }).esbuild;

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

let resources: Record<string, Resource>;
/** `dynamodb:GetItem`, `kms:Decrypt`, ...: the commands the deployed functions' sources import. */
const sentCommands = new Set<string>();

beforeAll(async () => {
  await promisify(execFile)('npm', ['run', '--silent', 'package'], { cwd: ROOT, maxBuffer: 16 * MB, timeout: 280_000 });
  const template = JSON.parse(readFileSync(join(OUT, 'cloudformation-template-update-stack.json'), 'utf8')) as {
    Resources: Record<string, Resource>;
  };
  resources = template.Resources;
  for (const fn of expectedFunctions()) {
    const out = await build({ ...esbuildSettings, entryPoints: [join(ROOT, 'functions', `${fn}.ts`)], write: false, metafile: true, outdir: OUT });
    for (const input of Object.keys(out.metafile.inputs).filter((f) => !f.includes('node_modules'))) {
      const source = readFileSync(join(ROOT, input), 'utf8');
      for (const m of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'@aws-sdk\/client-(dynamodb|kms)'/g)) {
        for (const name of m[1]!.split(',').map((x) => x.trim().replace(/^type\s+/, ''))) {
          if (/^\w+Command$/.test(name) && !m[0].startsWith('import type')) sentCommands.add(`${m[2]}:${name.replace(/Command$/, '')}`);
        }
      }
    }
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
  if (hasSource('catalog')) for (const p of ['kv', 'catalog', 'agent']) routes.set(`ANY /v1/${p}/{proxy+}`, 'catalog');
  return routes;
}
const expectedFunctions = () => [...new Set([...expectedRoutes().values(), 'sweeper', ...(hasSource('pki-tidy') ? ['pki-tidy'] : []), ...(hasSource('cloud-a-rotate') ? ['cloud-a-rotate'] : [])])].sort();

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
      const p = fn.Properties as { Runtime: string; Architectures: string[]; Handler: string; Environment: { Variables: Record<string, unknown> } };
      expect(p.Runtime, id).toBe('nodejs22.x');
      expect(p.Architectures, id).toEqual(['arm64']);
      expect(p.Handler, id).toBe(`functions/${name}.handler`);
      const env = p.Environment.Variables;
      expect(env.TABLE_NAME).toEqual({ Ref: tableId });
      expect(env.KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
      expect(env.LOG_LEVEL).toBe('info');
      for (const local of ['DYNAMODB_ENDPOINT', 'LOCAL_KEY_FILE', 'KMS_ENDPOINT', 'DATA_DIR', 'LAMBDA_ENDPOINT']) expect(env).not.toHaveProperty(local);
      // sys and the sweeper know the engine functions they invoke, by deployed name.
      if (name === 'sys' || name === 'sweeper') {
        const invoked = expectedFunctions().filter((f) => f !== 'sys' && f !== 'sweeper' && f !== 'pki-tidy' && f !== 'cloud-a-rotate');
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
      ofType('AWS::ApiGatewayV2::Integration').map(([id, r]) => [id, (r.Properties.IntegrationUri as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0]]),
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
    const [ruleId, rule] = ofType('AWS::Events::Rule').find(([, r]) => JSON.stringify(r.Properties.Targets).includes('SweeperLambdaFunction'))!;
    expect(rule.Properties).toMatchObject({ ScheduleExpression: 'rate(1 minute)', State: 'ENABLED' });
    expect(rule.Properties.Targets).toEqual([expect.objectContaining({ Arn: { 'Fn::GetAtt': ['SweeperLambdaFunction', 'Arn'] } })]);
    const permissions = ofType('AWS::Lambda::Permission').filter(([, p]) => p.Properties.Principal === 'events.amazonaws.com');
    expect(permissions.map(([, p]) => p.Properties.SourceArn)).toContainEqual({ 'Fn::GetAtt': [ruleId, 'Arn'] });
  });
});

describe('the IAM role', () => {
  it('reaches only the table, its indexes and the key (and the functions’ own log groups), never "*"', () => {
    const [tableId] = one('AWS::DynamoDB::Table');
    const [keyId] = one('AWS::KMS::Key');
    const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
    const indexArn = { 'Fn::Join': ['/', [tableArn, 'index', '*']] };
    const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };

    const roles = ofType('AWS::IAM::Role');
    expect(roles).toHaveLength(1);
    expect(ofType('AWS::IAM::Policy')).toEqual([]);
    const policies = roles[0]![1].Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[];
    expect(roles[0]![1].Properties).not.toHaveProperty('ManagedPolicyArns');
    const statements = policies.flatMap((p) => p.PolicyDocument.Statement);
    const list = <T>(v: T | T[]) => (Array.isArray(v) ? v : [v]);

    for (const s of statements) {
      expect(s.Effect).toBe('Allow');
      for (const r of list(s.Resource)) expect(r, JSON.stringify(s)).not.toBe('*');
      for (const a of list(s.Action)) expect(a).not.toMatch(/(^|:)\*$/);
    }
    const dynamo = statements.filter((s) => list(s.Action).some((a) => a.startsWith('dynamodb:')));
    const kms = statements.filter((s) => list(s.Action).some((a) => a.startsWith('kms:')));
    const invoke = statements.filter((s) => list(s.Action).some((a) => a.startsWith('lambda:')));
    const rest = statements.filter((s) => !dynamo.includes(s) && !kms.includes(s) && !invoke.includes(s));

    // sys and the sweeper invoke exactly the engine (and catalog) functions, nothing else.
    const invoked = expectedFunctions().filter((f) => f !== 'sys' && f !== 'sweeper' && f !== 'pki-tidy' && f !== 'cloud-a-rotate');
    expect(invoke).toHaveLength(invoked.length ? 1 : 0);
    if (invoked.length) {
      expect(invoke[0]!.Action).toEqual(['lambda:InvokeFunction']);
      expect(list(invoke[0]!.Resource).map((r) => JSON.stringify(r)).sort()).toEqual(
        invoked.map((f) => JSON.stringify({ 'Fn::Sub': `arn:\${AWS::Partition}:lambda:\${AWS::Region}:\${AWS::AccountId}:function:\${AWS::StackName}-${f}` })).sort(),
      );
    }
    // The lean clients' operations are allowed too.
    for (const op of DYNAMO_OPERATIONS) sentCommands.add(`dynamodb:${op}`);
    for (const op of KMS_SEALING_OPERATIONS) sentCommands.add(`kms:${op}`);

    expect(dynamo).toHaveLength(1);
    expect(list(dynamo[0]!.Action).sort()).toEqual(
      ['BatchWriteItem', 'DeleteItem', 'DescribeTable', 'GetItem', 'PutItem', 'Query', 'UpdateItem'].map((a) => `dynamodb:${a}`),
    );
    expect(dynamo[0]!.Resource).toEqual([tableArn, indexArn]);

    expect(kms).toHaveLength(1);
    expect(list(kms[0]!.Action).sort()).toEqual(['Decrypt', 'DescribeKey', 'Encrypt', 'GenerateDataKey', 'GetPublicKey', 'Sign'].map((a) => `kms:${a}`));
    expect(kms[0]!.Resource).toEqual([keyArn]);

    // Every DynamoDB and KMS command the deployed bundles can send is allowed.
    expect([...sentCommands]).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query', 'kms:GenerateDataKey', 'kms:Decrypt']));
    const allowed = new Set([...list(dynamo[0]!.Action), ...list(kms[0]!.Action)]);
    for (const used of sentCommands) expect(allowed, `${used} is sent by deployed code`).toContain(used);

    // What serverless adds by itself: writing the functions' own log groups.
    for (const s of rest) {
      for (const a of list(s.Action)) expect(a).toMatch(/^logs:/);
      for (const r of list(s.Resource)) expect(JSON.stringify(r)).toMatch(/:log-group:\/aws\/lambda\/latchkey-dev/);
    }
  });
});
