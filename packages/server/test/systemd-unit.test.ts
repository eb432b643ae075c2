// The systemd unit we ship and document: it must parse, carry the settings docs/operations.md
// promises, start the package's real bin, and be the same text the docs show.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const here = import.meta.dirname;
const unitText = readFileSync(join(here, '../systemd/svc-server.service'), 'utf8');
const pkg = JSON.parse(readFileSync(join(here, '../package.json'), 'utf8'));
const operations = readFileSync(join(here, '../../../docs/operations.md'), 'utf8');

/** systemd's unit syntax: [Section] headers, Key=Value lines, # and ; comments; keys may repeat. */
function parseUnit(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {};
  let current: Record<string, string[]> | null = null;
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      current = {};
      sections[header[1] as string] = current;
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (!kv || !current) throw new Error(`line ${i + 1} is not a section or Key=Value: ${raw}`);
    const key = kv[1] as string;
    current[key] = [...(current[key] ?? []), kv[2] as string];
  }
  return sections;
}

describe('packages/server/systemd/svc-server.service', () => {
  const unit = parseUnit(unitText);
  const service = unit.Service ?? {};
  const one = (key: string) => service[key]?.at(-1);

  it('has the three sections and starts after the network', () => {
    expect(Object.keys(unit)).toEqual(['Unit', 'Service', 'Install']);
    expect(unit.Unit?.After).toContain('network-online.target');
    expect(unit.Install?.WantedBy).toEqual(['multi-user.target']);
  });

  it('runs the package bin with node directly (not npx), as a dedicated user, with its data and secrets', () => {
    const exec = one('ExecStart')?.split(/\s+/) ?? [];
    expect(exec[0]).toMatch(/^\/\S*\/node$/);
    expect(exec[1]).toBe(`/opt/svc/node_modules/${pkg.name}/${pkg.bin['svc-server'].replace(/^\.\//, '')}`);
    expect(exec.slice(2)).toEqual(['start']);
    expect(one('User')).toBe('svc');
    expect(one('Group')).toBe('svc');
    expect(service.Environment).toContain('SERVICE_DATA_DIR=/var/lib/svc');
    expect(one('StateDirectory')).toBe('svc');
    expect(one('EnvironmentFile')).toBe('/etc/svc/svc.env');
  });

  it('restarts on failure but not on a configuration error, and stops with SIGTERM', () => {
    expect(one('Restart')).toBe('on-failure');
    expect(one('RestartPreventExitStatus')?.split(/\s+/)).toEqual(expect.arrayContaining(['78', '64']));
    expect(one('KillSignal')).toBe('SIGTERM');
  });

  it('is hardened, without breaking the V8 JIT', () => {
    for (const [key, value] of [
      ['NoNewPrivileges', 'true'],
      ['ProtectSystem', 'strict'],
      ['ProtectHome', 'true'],
      ['PrivateTmp', 'true'],
      ['CapabilityBoundingSet', ''],
    ])
      expect(one(key as string), key).toBe(value);
    expect(service.MemoryDenyWriteExecute).toBeUndefined();
  });

  it('ships in the package and is shown verbatim in docs/operations.md', () => {
    expect(pkg.files).toContain('systemd');
    expect(operations).toContain(`\`\`\`ini\n${unitText.trimEnd()}\n\`\`\``);
  });
});
