/**
 * cfn-lint (the npm package, martysweet's; the Python one is not installable here) on a
 * CloudFormation template object. Its resource specification is 2.29.0 (2019), older than
 * properties the template rightly uses; `STALE_SPEC` adds exactly those to the specification it
 * validates with, each as CloudFormation documents it today, so everything else is still checked.
 * A property only this list lets through is one AWS documents at the address beside it.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface PropertySpec {
  Required: boolean;
  PrimitiveType?: string;
  Type?: string;
  PrimitiveItemType?: string;
  Documentation?: string;
  UpdateType?: string;
}
interface Spec {
  ResourceTypes: Record<string, { Properties: Record<string, PropertySpec> }>;
  PropertyTypes: Record<string, { Properties: Record<string, PropertySpec> }>;
}
export interface LintResult {
  templateValid: boolean;
  errors: Record<'crit' | 'warn' | 'info', { message: string; resource: string }[]>;
}

const DOCS = 'https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide';
const string = { PrimitiveType: 'String' };
const optional = (doc: string, type: Omit<PropertySpec, 'Required'>): PropertySpec => ({
  Required: false,
  UpdateType: 'Mutable',
  Documentation: `${DOCS}/${doc}`,
  ...type,
});

/** [resource type or property type, property, its specification now] */
const STALE_SPEC: [string, string, PropertySpec][] = [
  // Lambda on arm64 (2021).
  [
    'AWS::Lambda::Function',
    'Architectures',
    optional('aws-resource-lambda-function.html#cfn-lambda-function-architectures', { Type: 'List', PrimitiveItemType: 'String' }),
  ],
  // The HTTP API's payload format 2.0, and its auto-deployed $default stage (no DeploymentId).
  [
    'AWS::ApiGatewayV2::Integration',
    'PayloadFormatVersion',
    optional('aws-resource-apigatewayv2-integration.html#cfn-apigatewayv2-integration-payloadformatversion', string),
  ],
  ['AWS::ApiGatewayV2::Stage', 'AutoDeploy', optional('aws-resource-apigatewayv2-stage.html', { PrimitiveType: 'Boolean' })],
  [
    'AWS::ApiGatewayV2::Stage',
    'DeploymentId',
    optional('aws-resource-apigatewayv2-stage.html#cfn-apigatewayv2-stage-deploymentid', string),
  ],
  // Required for WebSocket APIs only.
  [
    'AWS::ApiGatewayV2::Api',
    'RouteSelectionExpression',
    optional('aws-resource-apigatewayv2-api.html#cfn-apigatewayv2-api-routeselectionexpression', string),
  ],
  ['AWS::IAM::Role', 'Description', optional('aws-resource-iam-role.html#cfn-iam-role-description', string)],
  ['AWS::KMS::Key', 'KeySpec', optional('aws-resource-kms-key.html#cfn-kms-key-keyspec', string)],
  [
    'AWS::DynamoDB::Table.SSESpecification',
    'SSEType',
    optional('aws-properties-dynamodb-table-ssespecification.html#cfn-dynamodb-table-ssespecification-ssetype', string),
  ],
];

let patched = false;

/** Lays STALE_SPEC over the specification cfn-lint holds (the one module instance it reads). */
function patchSpec(): void {
  if (patched) return;
  const spec = require('cfn-lint/data/aws_resources_specification.json') as Spec;
  for (const [type, property, now] of STALE_SPEC) {
    const holder = type.includes('.') ? spec.PropertyTypes[type] : spec.ResourceTypes[type];
    if (!holder) throw new Error(`cfn-lint's specification has no ${type}`);
    holder.Properties[property] = now;
  }
  patched = true;
}

export function cfnLint(template: unknown): LintResult {
  patchSpec();
  const { validateJsonObject } = require('cfn-lint') as { validateJsonObject: (t: unknown, o?: object) => LintResult };
  // The template is validated as a copy: the validator resolves intrinsic functions in place.
  return validateJsonObject(structuredClone(template), { guessParameters: [] });
}
