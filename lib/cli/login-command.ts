/**
 * `latchkey login [-method=token|approle|aws|jwt|…] [-path=MOUNT] [TOKEN | k=v …]`: logs in and
 * keeps the token in ~/.latchkey-token (0600) unless -no-store; -token-only prints the token
 * alone and stores nothing, as the vault CLI does.
 */
import type { Auth, Envelope } from '../client/client';
import { bool, str, UsageError } from './args';
import { storeToken } from './context';
import { parseData } from './data-args';
import { fieldOf, formatOf, printField, printSecret } from './format';
import { readStdin } from './io';
import { defineCommand, OUTPUT_FLAGS, OUTPUT_HELP } from './kit';
import { login } from './login';

const HELP = `Usage: latchkey login [flags] [TOKEN | k=v ...]

Logs in and keeps the token in ~/.latchkey-token (mode 0600) for the commands that follow.

  -method=M        token (default), approle (role_id=… secret_id=@file), jwt (role=… jwt=@file),
                   aws (role=… [header_value=…] [region=…]; signed with the standard AWS
                   credential chain: environment, profile, SSO, container or instance role),
                   or any other method mounted (its fields as k=v).
  -path=MOUNT      Where the method is mounted (default: the method's name).
  -no-store        Do not keep the token.
  -token-only      Print the token alone (implies -no-store).
${OUTPUT_HELP}`;

export const envelopeOf = (auth: Auth): Envelope => ({
  request_id: '',
  lease_id: '',
  lease_duration: 0,
  renewable: false,
  data: null as unknown as Envelope['data'],
  warnings: null,
  auth,
});

export const command = defineCommand(
  {
    summary: 'Log in and keep the token',
    help: HELP,
    flags: { ...OUTPUT_FLAGS, method: 'string', path: 'string', 'no-store': 'boolean', 'token-only': 'boolean' },
    args: [0, -1],
  },
  async (c) => {
    const method = str(c.p, 'method', 'token');
    const mount = str(c.p, 'path', method).replace(/^\/+|\/+$/g, '');
    if (!/^[A-Za-z0-9_.-]+$/.test(method)) throw new UsageError(`invalid -method: ${method}`);
    let args = c.p.args;
    let fields = {};
    if (method === 'token' && args.length === 1 && !args[0]!.includes('=')) {
      const token = args[0] === '-' ? (await readStdin(c.io)).trim() : args[0]!;
      fields = { token };
      args = [];
    }
    fields = { ...fields, ...(await parseData(args, c.io)) };
    const ctx = c.ctx();
    const auth = await login(ctx.client, method, mount, fields);
    const tokenOnly = bool(c.p, 'token-only');
    if (tokenOnly) {
      c.io.stdout.write(auth.client_token + (c.io.stdout.isTTY ? '\n' : ''));
      return 0;
    }
    const store = !bool(c.p, 'no-store');
    if (store) storeToken(ctx.tokenFile, auth.client_token);
    const format = formatOf(str(c.p, 'format'), c.io.env);
    const e = envelopeOf(auth);
    const field = str(c.p, 'field');
    if (field) {
      printField(c.io, fieldOf(e, field, {}), format);
      return 0;
    }
    if (format === 'table')
      c.io.stdout.write(
        store
          ? `Success! You are now authenticated. The token below is stored in ${ctx.tokenFile};\nthe commands that follow use it.\n\n`
          : 'Success! You are now authenticated. The token below was not stored:\nset LATCHKEY_TOKEN to use it.\n\n',
      );
    printSecret(c.io, e, format === 'raw' ? 'json' : format);
    return 0;
  },
);
