/** Where `portal login` keeps its profiles: ~/.config/portal/config.json (or $XDG_CONFIG_HOME), readable by the owner only. */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface Profile {
  url: string;
  token: string;
}
export interface ConfigFile {
  profiles: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.PORTAL_CONFIG) return env.PORTAL_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'portal', 'config.json');
}

export function readConfig(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { profiles: {} };
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return { profiles: parsed.profiles ?? {} };
}

/** Written with mode 0600 in a 0700 directory: the file holds secrets. */
export function writeConfig(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
}
