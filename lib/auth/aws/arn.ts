/**
 * IAM principal ARNs as GetCallerIdentity answers them, the reference's canonical form, and the
 * role bindings (`bound_iam_principal_arn`, `*` wildcards) matched against them. No IAM calls:
 * an assumed role's path cannot be recovered, so its canonical ARN has none (as the reference's).
 */
import { InvalidInput } from '../../domain-errors';

export interface IamEntity {
  /** aws, aws-cn, aws-us-gov */
  partition: string;
  account: string;
  /** user, role or assumed-role */
  type: string;
  /** the path between the type and the name, without its slashes ('' for assumed roles) */
  path: string;
  /** the user or role name */
  friendlyName: string;
  /** an assumed role's session name */
  sessionName: string;
}

const TYPES = ['user', 'role', 'assumed-role'];

/** Parses a caller ARN as the reference does (`arn:<partition>:<iam|sts>::<account>:<type>/<…>`). */
export function parseIamArn(arn: string): IamEntity {
  const parts = arn.split(':');
  if (parts.length !== 6 || parts[0] !== 'arn')
    throw new InvalidInput('unrecognized caller ARN: expected arn:<partition>:<service>::<account>:<principal>');
  const [, partition = '', service = '', , account = '', resource = ''] = parts;
  if (service !== 'iam' && service !== 'sts') throw new InvalidInput('unrecognized caller ARN: the service is not iam or sts');
  if (!/^\d{12}$/.test(account)) throw new InvalidInput('unrecognized caller ARN: the account is not 12 digits');
  const names = resource.split('/');
  const type = names[0] ?? '';
  if (names.length < 2 || !TYPES.includes(type) || names.some((n) => n === '')) {
    throw new InvalidInput(`unrecognized principal type in the caller ARN: only ${TYPES.join(', ')} can log in`);
  }
  if (type === 'assumed-role') {
    if (names.length !== 3) throw new InvalidInput('unrecognized caller ARN: an assumed role is assumed-role/<role>/<session>');
    return { partition, account, type, path: '', friendlyName: names[1] ?? '', sessionName: names[2] ?? '' };
  }
  return { partition, account, type, path: names.slice(1, -1).join('/'), friendlyName: names[names.length - 1] ?? '', sessionName: '' };
}

/** `arn:<partition>:iam::<account>:<user|role>/<name>`: an assumed role becomes its role, paths are dropped. */
export function canonicalArn(e: IamEntity): string {
  return `arn:${e.partition}:iam::${e.account}:${e.type === 'assumed-role' ? 'role' : e.type}/${e.friendlyName}`;
}

/** The principal's ARN with its path, as far as the caller ARN tells it (a user's has it, an assumed role's not). */
export function fullArn(e: IamEntity): string {
  const type = e.type === 'assumed-role' ? 'role' : e.type;
  return `arn:${e.partition}:iam::${e.account}:${type}/${e.path ? `${e.path}/` : ''}${e.friendlyName}`;
}

/** A binding as written: an ARN, `*` standing for any characters. */
export function checkBinding(binding: string): string {
  const b = binding.trim();
  if (!b.startsWith('arn:') || b.split(':').length < 6)
    throw new InvalidInput(
      `bound_iam_principal_arn "${b.slice(0, 80)}" is not an ARN (arn:aws:iam::<account>:<user|role>/<name>, * as a wildcard)`,
    );
  if (b.length > 2048) throw new InvalidInput('bound_iam_principal_arn entries are at most 2048 characters');
  return b;
}

/** `*` matches any run of characters; the classic two-pointer match, linear in practice, no regex. */
function globMatch(pattern: string, value: string): boolean {
  let p = 0;
  let v = 0;
  let star = -1;
  let mark = 0;
  while (v < value.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === value[v]) {
      p++;
      v++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = v;
    } else if (star >= 0) {
      p = star + 1;
      v = ++mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/**
 * Whether a binding admits the principal: without `*`, its canonical ARN or its full ARN equals
 * the binding; with `*`, the full ARN matches the glob (the reference matches wildcards against
 * the full ARN it looks up in IAM; here an assumed role's has no path).
 */
export function bindingMatches(bindings: readonly string[], e: IamEntity): boolean {
  const canonical = canonicalArn(e);
  const full = fullArn(e);
  return bindings.some((b) => (b.includes('*') ? globMatch(b, full) : b === canonical || b === full));
}
