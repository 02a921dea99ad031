import { describe, expect, it } from 'vitest';
import { bindingMatches, canonicalArn, checkBinding, fullArn, parseIamArn } from '../../../lib/auth/aws/arn';

describe('parseIamArn', () => {
  it('reads users, with and without a path, and assumed roles', () => {
    expect(parseIamArn('arn:aws:iam::123456789012:user/alice')).toEqual({
      partition: 'aws',
      account: '123456789012',
      type: 'user',
      path: '',
      friendlyName: 'alice',
      sessionName: '',
    });
    expect(parseIamArn('arn:aws-cn:iam::123456789012:user/ops/eu/bob')).toMatchObject({
      partition: 'aws-cn',
      path: 'ops/eu',
      friendlyName: 'bob',
    });
    expect(parseIamArn('arn:aws:sts::123456789012:assumed-role/app/i-0abc')).toMatchObject({
      type: 'assumed-role',
      friendlyName: 'app',
      sessionName: 'i-0abc',
      path: '',
    });
  });

  it('refuses what is not a user or assumed-role ARN', () => {
    for (const arn of [
      'arn:aws:iam::123456789012:root',
      'arn:aws:sts::123456789012:federated-user/bob',
      'arn:aws:s3:::bucket/x',
      'arn:aws:iam::12345:user/x',
      'aws:iam::123456789012:user/x',
      'arn:aws:sts::123456789012:assumed-role/app',
      'arn:aws:iam::123456789012:user/',
    ]) {
      expect(() => parseIamArn(arn), arn).toThrow(/unrecognized/);
    }
  });
});

describe('canonical and full ARNs', () => {
  it("maps an assumed role to its role (no path can be recovered) and keeps a user's path only in the full ARN", () => {
    const role = parseIamArn('arn:aws:sts::123456789012:assumed-role/app/s1');
    expect(canonicalArn(role)).toBe('arn:aws:iam::123456789012:role/app');
    expect(fullArn(role)).toBe('arn:aws:iam::123456789012:role/app');
    const user = parseIamArn('arn:aws:iam::123456789012:user/ops/bob');
    expect(canonicalArn(user)).toBe('arn:aws:iam::123456789012:user/bob');
    expect(fullArn(user)).toBe('arn:aws:iam::123456789012:user/ops/bob');
  });
});

describe('bindingMatches', () => {
  const role = parseIamArn('arn:aws:sts::123456789012:assumed-role/app-server/s1');
  const user = parseIamArn('arn:aws:iam::123456789012:user/ops/bob');
  const table: [string, typeof role, boolean][] = [
    ['arn:aws:iam::123456789012:role/app-server', role, true],
    ['arn:aws:iam::123456789012:role/app-*', role, true],
    ['arn:aws:iam::123456789012:*', role, true],
    ['arn:aws:iam::*:role/app-server', role, true],
    ['arn:aws:iam::123456789012:role/app', role, false],
    ['arn:aws:iam::210987654321:role/app-server', role, false],
    ['arn:aws:sts::123456789012:assumed-role/app-server/s1', role, false],
    ['arn:aws:iam::123456789012:user/bob', user, true],
    ['arn:aws:iam::123456789012:user/ops/bob', user, true],
    ['arn:aws:iam::123456789012:user/ops/*', user, true],
    ['arn:aws:iam::123456789012:user/dev/*', user, false],
    ['arn:aws:iam::123456789012:role/*', user, false],
  ];
  for (const [binding, entity, ok] of table) {
    it(`${binding} ${ok ? 'admits' : 'refuses'} ${entity.type}/${entity.friendlyName}`, () => {
      expect(bindingMatches([binding], entity)).toBe(ok);
    });
  }

  it('matches many-star patterns without backtracking blow-up', () => {
    expect(bindingMatches([`arn:${'*a'.repeat(40)}*b`], parseIamArn(`arn:aws:iam::123456789012:user/${'a'.repeat(60)}`))).toBe(false);
  });
});

describe('checkBinding', () => {
  it('takes ARNs and refuses names', () => {
    expect(checkBinding(' arn:aws:iam::123456789012:role/x ')).toBe('arn:aws:iam::123456789012:role/x');
    expect(() => checkBinding('alice')).toThrow(/not an ARN/);
    expect(() => checkBinding('*')).toThrow(/not an ARN/);
  });
});
