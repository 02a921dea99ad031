/** `latchkey token lookup|create|renew|revoke`, as the vault CLI's token commands call auth/token/. */
import type { Json } from '../client/client';
import { bool, str, strs, UsageError } from './args';
import { defineCommand, defineGroup, OUTPUT_FLAGS, OUTPUT_HELP } from './kit';
import { printAnswer } from './output';

const lookup = defineCommand(
  {
    summary: 'Look up a token (the own one by default)',
    help: `Usage: latchkey token lookup [flags] [TOKEN | ACCESSOR]\n\n  -accessor        The argument is an accessor.\n${OUTPUT_HELP}`,
    flags: { ...OUTPUT_FLAGS, accessor: 'boolean' },
    args: [0, 1],
  },
  async (c) => {
    const { client } = c.ctx();
    const [arg] = c.p.args;
    if (bool(c.p, 'accessor') && !arg) throw new UsageError('token lookup -accessor needs an accessor');
    const e = !arg
      ? await client.read('auth/token/lookup-self')
      : bool(c.p, 'accessor')
        ? await client.write('auth/token/lookup-accessor', { accessor: arg })
        : await client.write('auth/token/lookup', { token: arg });
    return printAnswer(c, e, '');
  },
);

const create = defineCommand(
  {
    summary: 'Create a token',
    help: `Usage: latchkey token create [flags]

  -policy=NAME           A policy (repeat, or a comma list).
  -ttl=D                 Its TTL.         -explicit-max-ttl=D   Its hard limit.
  -period=D              A periodic token.
  -renewable=BOOL        Renewable (default true).
  -orphan                No parent.       -role=NAME   Create against a token role.
  -display-name=NAME     -use-limit=N     -no-default-policy
  -metadata=k=v          Metadata (repeat).
${OUTPUT_HELP}`,
    flags: {
      ...OUTPUT_FLAGS,
      policy: 'strings',
      ttl: 'string',
      'explicit-max-ttl': 'string',
      period: 'string',
      renewable: 'boolean',
      orphan: 'boolean',
      role: 'string',
      'display-name': 'string',
      'use-limit': 'string',
      'no-default-policy': 'boolean',
      metadata: 'strings',
    },
    args: [0, 0],
  },
  async (c) => {
    const body: Json = {};
    const policies = strs(c.p, 'policy');
    if (policies.length) body.policies = policies;
    for (const [flag, field] of [
      ['ttl', 'ttl'],
      ['explicit-max-ttl', 'explicit_max_ttl'],
      ['period', 'period'],
      ['display-name', 'display_name'],
    ] as const)
      if (str(c.p, flag)) body[field] = str(c.p, flag);
    if (str(c.p, 'use-limit')) {
      const n = Number(str(c.p, 'use-limit'));
      if (!Number.isInteger(n) || n < 0) throw new UsageError(`invalid -use-limit: ${str(c.p, 'use-limit')}`);
      body.num_uses = n;
    }
    if (c.p.flags.renewable !== undefined) body.renewable = bool(c.p, 'renewable');
    if (bool(c.p, 'no-default-policy')) body.no_default_policy = true;
    const meta = (c.p.flags.metadata as string[] | undefined) ?? [];
    if (meta.length) {
      body.meta = Object.fromEntries(
        meta.map((m) => {
          const eq = m.indexOf('=');
          if (eq <= 0) throw new UsageError(`invalid -metadata "${m}": format must be key=value`);
          return [m.slice(0, eq), m.slice(eq + 1)];
        }),
      );
    }
    const role = str(c.p, 'role');
    const path = role ? `auth/token/create/${role}` : bool(c.p, 'orphan') ? 'auth/token/create-orphan' : 'auth/token/create';
    return printAnswer(c, await c.ctx().client.write(path, body), '');
  },
);

const renew = defineCommand(
  {
    summary: 'Renew a token (the own one by default)',
    help: `Usage: latchkey token renew [flags] [TOKEN]\n\n  -increment=D     The TTL asked for.\n${OUTPUT_HELP}`,
    flags: { ...OUTPUT_FLAGS, increment: 'string', i: 'string' },
    args: [0, 1],
  },
  async (c) => {
    const [token] = c.p.args;
    const increment = str(c.p, 'increment') || str(c.p, 'i');
    const body: Json = { ...(increment ? { increment } : {}), ...(token ? { token } : {}) };
    return printAnswer(c, await c.ctx().client.write(token ? 'auth/token/renew' : 'auth/token/renew-self', body), '');
  },
);

const revoke = defineCommand(
  {
    summary: 'Revoke a token',
    help: `Usage: latchkey token revoke [flags] [TOKEN | ACCESSOR]\n\n  -self            Revoke the own token.\n  -accessor        The argument is an accessor.\n  -mode=orphan     Keep the token's children (as orphans).`,
    flags: { self: 'boolean', accessor: 'boolean', mode: 'string' },
    args: [0, 1],
  },
  async (c) => {
    const [arg] = c.p.args;
    const self = bool(c.p, 'self');
    const mode = str(c.p, 'mode');
    if (mode && mode !== 'orphan' && mode !== 'path') throw new UsageError(`invalid -mode: ${mode}`);
    if (self === Boolean(arg))
      throw new UsageError(
        self ? 'token revoke -self takes no argument' : 'token revoke needs a token, an accessor with -accessor, or -self',
      );
    const { client } = c.ctx();
    if (self) await client.write('auth/token/revoke-self', {});
    else if (bool(c.p, 'accessor')) await client.write('auth/token/revoke-accessor', { accessor: arg });
    else await client.write(mode === 'orphan' ? 'auth/token/revoke-orphan' : 'auth/token/revoke', { token: arg });
    c.io.stdout.write('Success! Revoked token (if it existed)\n');
    return 0;
  },
);

export const command = defineGroup(
  'Look up, create, renew and revoke tokens',
  { lookup, create, renew, revoke },
  'Usage: latchkey token <subcommand> [flags] [args]',
);
