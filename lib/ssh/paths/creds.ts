/** creds/<role> (OTP or dynamic key), lookup (roles by IP) and verify (OTP, no token). */
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type MountRef, type Result } from '../../http/path';
import { requireRole } from '../../http/role-required';
import { grantTtl, LEASE } from '../../lease-ttl';
import { checkIp } from '../../net/cidr';
import { issueDynamic } from '../dynamic';
import { issueOtp, verifyOtp, VERIFY_ECHO_REQUEST, VERIFY_ECHO_RESPONSE } from '../otp';
import type { Role } from '../role';
import { SshStore } from '../ssh-store';
import { checkTargetIp, roleAcceptsIp, targetUser } from '../target';
import { sshRole } from './ssh-role';
import type { LeaseRecord } from '../../sys/leases';

const leaseOf = (l: LeaseRecord) => ({ id: l.lease_id, duration: l.expire_time - l.issue_time, renewable: false });

/** A lease, as the reference's core grants one: the role's max_ttl only lowers the mount's maximum. */
function leaseTtls(role: Role, mount: MountRef) {
  const { ttl, maxTtl } = grantTtl(LEASE, {
    roleTtl: role.ttl,
    roleMaxTtl: role.maxTtl,
    mountDefaultTtl: mount.defaultLeaseTtl,
    mountMaxTtl: mount.maxLeaseTtl,
  });
  return { ttl, maxTtl };
}

export const credsPaths = [
  definePath({
    pattern: 'creds/:name',
    fields: {
      name: f.pathParam({ description: 'Role name.' }),
      username: f.string({ default: '', description: 'User on the target host; the role default_user when empty.' }),
      ip: f.string({ required: true, compareAs: 'address', description: 'IP address of the target host.' }),
    },
    help: 'Credentials for a host: a one-time password (otp role) or an installed key pair (dynamic role).',
    operations: {
      write: async (req): Promise<Result> => {
        const { name, role } = await requireRole(sshRole, req, req.data.name);
        const store = new SshStore(req.deps, req.part);
        if (role.keyType === 'ca') throw new BadRequest(`role "${name}" is a ca role: use sign/${name}`);
        const zero = (await store.zeroAddressRoles()).includes(name);
        const ip = checkTargetIp(role, name, req.data.ip, zero);
        const username = targetUser(role, req.data.username);
        const base = { mount: req.mount.path, ip, username, ...leaseTtls(role, req.mount) };
        if (role.keyType === 'otp') {
          const { otp, lease } = await issueOtp(store, req.secrets, { ...base, roleName: name });
          return { data: { ip, key: otp, key_type: 'otp', port: role.port, username }, lease: leaseOf(lease) };
        }
        const { privateKey, lease } = await issueDynamic(store, req.secrets, { ...base, role });
        return { data: dynamicData(role, privateKey, ip, username), lease: leaseOf(lease) };
      },
    },
  }),
  definePath({
    pattern: 'lookup',
    fields: { ip: f.string({ required: true, compareAs: 'address', description: 'IP address.' }) },
    help: 'The otp and dynamic roles that accept an IP address.',
    operations: {
      write: async (req) => {
        const ip = checkIp(req.data.ip.trim());
        const store = new SshStore(req.deps, req.part);
        const zero = await store.zeroAddressRoles();
        const roles = (await store.listRoles()).filter((r) => roleAcceptsIp(r.role, ip, zero.includes(r.name))).map((r) => r.name);
        return { data: { roles } };
      },
    },
  }),
  definePath({
    pattern: 'verify',
    fields: { otp: f.string({ required: true, description: 'The one-time password.' }) },
    help: 'Verifies (and consumes) a one-time password; no token needed. "verify-echo-request" answers message "verify-echo-response" (the SSH helper\'s self-check).',
    unauthenticated: ['write'],
    operations: {
      write: async (req) => {
        if (req.data.otp === VERIFY_ECHO_REQUEST) return { data: { message: VERIFY_ECHO_RESPONSE } };
        const r = await verifyOtp(new SshStore(req.deps, req.part), req.data.otp, Math.floor(req.deps.now() / 1000));
        return { data: { ip: r.ip, username: r.username, role_name: r.role_name } };
      },
    },
  }),
];

function dynamicData(role: Role, privateKey: string, ip: string, username: string) {
  return {
    admin_user: role.adminUser,
    allowed_users: role.allowedUsers.join(','),
    cidr_list: role.cidrList.join(','),
    default_user: role.defaultUser,
    exclude_cidr_list: role.excludeCidrList.join(','),
    install_script: role.installScript,
    key: privateKey,
    key_bits: role.keyBits,
    key_option_specs: role.keyOptionSpecs,
    key_type: 'dynamic',
    port: role.port,
    ip,
    username,
  };
}
