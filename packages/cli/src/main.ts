/**
 * `portal`, the command line on @portal/sdk (issue 26 item 5; docs/cli.md). Exit codes: 0 done, 1 the API refused
 * (its message on stderr) or could not be reached, 2 a usage error. `--json` prints the answer's data for scripts;
 * without it, a readable table. PORTAL_URL and PORTAL_TOKEN override the stored profile.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { DEFAULT_API_BASE_PATH } from '@portal/contract/constants';
import { createClient, PortalError } from '@portal/sdk';
import { configPath, readConfig, writeConfig } from './config.ts';
import { fields, table } from './output.ts';

export const USAGE = `Usage: portal <command> [options]

  login --url URL --token vmp_...       check the token and store it (profile "default", or --profile NAME)
  vm list [--search S] [--status S] [--page N] [--rows N]
  vm show ID
  vm create --name NAME --region ID --image IMAGE --configuration ID --provider ID
            [--team ID] [--count N] [--ssh-key ID]... [--user-data-file PATH]
  vm start|stop|delete ID
  ssh-key list
  ssh-key add --name NAME (--key "ssh-ed25519 AAAA..." | --file PATH)
  ssh-key delete ID
  team list [--search S] [--page N] [--rows N]

Options: --json (the answer's data as JSON), --profile NAME, --help.
Environment: PORTAL_URL and PORTAL_TOKEN override the profile; PORTAL_PROFILE picks one.
Exit codes: 0 done, 1 the API refused or could not be reached (its message on stderr), 2 usage.
`;

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

class UsageError extends Error {}

const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  profile: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  region: { type: 'string' },
  image: { type: 'string' },
  configuration: { type: 'string' },
  provider: { type: 'string' },
  team: { type: 'string' },
  count: { type: 'string' },
  'ssh-key': { type: 'string', multiple: true },
  'user-data-file': { type: 'string' },
  key: { type: 'string' },
  file: { type: 'string' },
  search: { type: 'string' },
  status: { type: 'string' },
  page: { type: 'string' },
  rows: { type: 'string' },
} as const;

export function apiBaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`Not a URL: ${url}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new UsageError(`Not an http(s) URL: ${url}`);
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path || DEFAULT_API_BASE_PATH}`;
}

function id(value: string | undefined, what: string): number {
  if (value === undefined) throw new UsageError(`Missing ${what}`);
  if (!/^\d+$/.test(value)) throw new UsageError(`${what} must be a number: ${value}`);
  return Number(value);
}

function required(value: string | undefined, option: string): string {
  if (value === undefined || value === '') throw new UsageError(`Missing --${option}`);
  return value;
}

function optionalNumber(value: string | undefined, option: string): number | undefined {
  return value === undefined ? undefined : id(value, `--${option}`);
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io: Io = processIo): Promise<number> {
  try {
    return await run(argv, env, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`portal: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof PortalError) {
      const status = err.status ? ` (HTTP ${err.status})` : '';
      io.err(`portal: ${err.message}${status}\n`);
      for (const issue of err.issues) io.err(`  ${issue.path || '(body)'}: ${issue.message}\n`);
      return 1;
    }
    if (err instanceof Error && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      io.err(`portal: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    throw err;
  }
}

async function run(argv: string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { values: opts, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, sub, ...rest] = positionals;
  if (opts.help || command === 'help' || command === undefined) {
    if (command === undefined && !opts.help) {
      io.err(USAGE);
      return 2;
    }
    io.out(USAGE);
    return 0;
  }
  const profileName = opts.profile ?? env.PORTAL_PROFILE ?? 'default';
  const file = configPath(env);

  if (command === 'login') {
    if (sub !== undefined) throw new UsageError(`Unexpected argument: ${sub}`);
    const url = apiBaseUrl(required(opts.url ?? env.PORTAL_URL, 'url'));
    const token = required(opts.token ?? env.PORTAL_TOKEN, 'token');
    // The token is checked before it is stored: a wrong one fails here with the API's 401.
    await createClient({ baseUrl: url, token }).vm.list({ query: { rowsPerPage: 1 } });
    const config = readConfig(file);
    config.profiles[profileName] = { url, token };
    writeConfig(file, config);
    if (opts.json) io.out(`${JSON.stringify({ profile: profileName, url, config: file })}\n`);
    else io.out(`Logged in to ${url} as profile "${profileName}" (saved in ${file})\n`);
    return 0;
  }

  const profile = readConfig(file).profiles[profileName];
  const url = env.PORTAL_URL || profile?.url;
  const token = env.PORTAL_TOKEN || profile?.token;
  if (!url || !token) {
    throw new UsageError(
      `Not logged in (profile "${profileName}"): run portal login --url URL --token vmp_... or set PORTAL_URL and PORTAL_TOKEN`,
    );
  }
  const client = createClient({ baseUrl: apiBaseUrl(url), token });
  const out = (data: unknown, readable: () => string) =>
    io.out(opts.json ? `${JSON.stringify(data, null, 2)}\n` : readable());
  const done = (message: string) => out({ message }, () => `${message}\n`);
  const noMore = (args: string[]) => {
    if (args.length) throw new UsageError(`Unexpected argument: ${args[0]}`);
  };

  switch (`${command} ${sub ?? ''}`.trim()) {
    case 'vm list': {
      noMore(rest);
      const data = await client.vm.list({
        query: {
          ...(opts.search !== undefined ? { search: opts.search } : {}),
          ...(opts.status !== undefined ? { status: opts.status as never } : {}),
          ...(opts.page !== undefined ? { page: id(opts.page, '--page') } : {}),
          ...(opts.rows !== undefined ? { rowsPerPage: id(opts.rows, '--rows') } : {}),
        },
      });
      out(
        data,
        () =>
          table(
            ['ID', 'NAME', 'STATUS', 'SIZE', 'REGION', 'TEAM', 'PUBLIC IP', 'CREATED'],
            data.data.map((vm) => [
              vm.id,
              vm.name,
              vm.status,
              vm.configuration,
              vm.region,
              vm.team,
              vm.publicIp,
              vm.createdAt,
            ]),
          ) + (data.totalPages > 1 ? `(page ${opts.page ?? 1} of ${data.totalPages}: --page N)\n` : ''),
      );
      return 0;
    }
    case 'vm show': {
      const [vmId, ...more] = rest;
      noMore(more);
      const data = await client.vm.get({ params: { id: id(vmId, 'VM id') } });
      const vm = data.virtualMachine;
      out(data, () =>
        fields([
          ['ID', vm.id],
          ['Name', vm.name],
          ['Status', data.status],
          ['Size', `${vm.configuration} (${vm.cpu} CPU, ${vm.ram} GB RAM, ${vm.disk} GB disk)`],
          ['Region', `${vm.region}, ${vm.country}`],
          ['Image', vm.image],
          ['Team', vm.teamId],
          ['Public IP', vm.network.publicIp],
          ['Private IP', vm.network.privateIp],
          ['Created', vm.createdAt],
        ]),
      );
      return 0;
    }
    case 'vm create': {
      noMore(rest);
      const userDataFile = opts['user-data-file'];
      const body = {
        name: required(opts.name, 'name'),
        regionId: id(required(opts.region, 'region'), '--region'),
        image: required(opts.image, 'image'),
        configurationId: id(required(opts.configuration, 'configuration'), '--configuration'),
        providerId: id(required(opts.provider, 'provider'), '--provider'),
        numberOfInstances: optionalNumber(opts.count, 'count') ?? 1,
        ...(opts.team !== undefined ? { teamId: id(opts.team, '--team') } : {}),
        ...(opts['ssh-key'] ? { sshKeyIds: opts['ssh-key'].map((k) => id(k, '--ssh-key')) } : {}),
        ...(userDataFile !== undefined ? { userData: readFileSync(userDataFile, 'utf8') } : {}),
      };
      const { message, data } = await client.callWithMessage('vms.create', { body });
      out(data, () => `${message}\nCreated: ${data.ids.join(', ')}\n`);
      return 0;
    }
    case 'vm start':
    case 'vm stop':
    case 'vm delete': {
      const [vmId, ...more] = rest;
      noMore(more);
      const params = { id: id(vmId, 'VM id') };
      const key = sub === 'start' ? 'vms.start' : sub === 'stop' ? 'vms.stop' : 'vms.delete';
      const { message } = await client.callWithMessage(key, { params });
      done(message);
      return 0;
    }
    case 'ssh-key list': {
      noMore(rest);
      const keys = await client.sshKeys.list();
      out(keys, () =>
        table(
          ['ID', 'NAME', 'TYPE', 'FINGERPRINT'],
          keys.map((k) => [k.id, k.name, `${k.type} ${k.bits}`, k.fingerprint]),
        ),
      );
      return 0;
    }
    case 'ssh-key add': {
      noMore(rest);
      if ((opts.key === undefined) === (opts.file === undefined)) throw new UsageError('Give one of --key or --file');
      const publicKey = opts.key ?? readFileSync(opts.file!, 'utf8').trim();
      const key = await client.sshKeys.create({ body: { name: required(opts.name, 'name'), publicKey } });
      out(key, () => `Added key ${key.id} (${key.fingerprint})\n`);
      return 0;
    }
    case 'ssh-key delete': {
      const [keyId, ...more] = rest;
      noMore(more);
      const { message } = await client.callWithMessage('sshKeys.remove', { params: { id: id(keyId, 'key id') } });
      done(message);
      return 0;
    }
    case 'team list': {
      noMore(rest);
      const data = await client.teams.list({
        query: {
          ...(opts.search !== undefined ? { search: opts.search } : {}),
          ...(opts.page !== undefined ? { page: id(opts.page, '--page') } : {}),
          ...(opts.rows !== undefined ? { rowsPerPage: id(opts.rows, '--rows') } : {}),
        },
      });
      out(data, () =>
        table(
          ['ID', 'NAME', 'MEMBERS', 'VMS', 'CREATED'],
          data.data.map((team) => [team.id, team.name, team.userCount, team.vmCount, team.createdAt]),
        ),
      );
      return 0;
    }
    default:
      throw new UsageError(`Unknown command: ${[command, sub].filter(Boolean).join(' ')}`);
  }
}
