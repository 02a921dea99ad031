/**
 * `npm test` printed the AWS SDK's Node-version warning once per worker and child (96 times,
 * 770 of its 1,243 lines, issue 27). vitest.config.ts sets the SDK's own switch in the tests'
 * environment, which the children the helpers spawn inherit ({ ...process.env }, as
 * test/helpers/local-child.ts does); this checks both, and that the warning is real without it.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SCRIPT =
  "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; new DynamoDBClient({ region: 'us-east-1' }); console.log('made');";

/** A child made as the helpers make theirs: node with tsx, this process's environment plus `extra`. */
async function childStderr(env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
    cwd: ROOT,
    env,
  });
  expect(stdout).toBe('made\n');
  return stderr;
}

describe("the AWS SDK's Node-version warning", () => {
  it('is off in the tests and in the children they spawn', async () => {
    expect(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true');
    expect(await childStderr({ ...process.env })).not.toMatch(/NodeVersionSupportWarning/);
  });

  it('is printed without the switch on this Node (so the check above checks something)', async () => {
    const env = { ...process.env };
    delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const stderr = await childStderr(env);
    if (Number(process.versions.node.split('.')[0]) < 22) expect(stderr).toMatch(/NodeVersionSupportWarning/);
    else expect(stderr).toBe('');
  });
});
