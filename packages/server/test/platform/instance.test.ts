import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { instanceName, isGoneHere, pidSpaceHere } from '../../src/platform/instance.js';

/**
 * Taking over a lease whose holder "looks dead" runs its work a second time if the holder is in
 * fact alive somewhere the pid check cannot see. These pin down what counts as "here".
 */
const pidNamespace = () => /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];

describe('isGoneHere: whose pid this process can vouch for', () => {
  const dead = spawnSync(process.execPath, ['-e', '']).pid;

  it('a dead process in this pid namespace on this machine is gone; a live one is not', () => {
    expect(isGoneHere(`${pidSpaceHere()}/${dead}/inst_x`)).toBe(true);
    expect(isGoneHere(`${pidSpaceHere()}/${process.pid}/inst_x`)).toBe(false);
  });

  it('our own instance names are made here', () => {
    const name = instanceName({ make: (p: string) => `${p}_1` } as never);
    expect(name).toBe(`${pidSpaceHere()}/${process.pid}/inst_1`);
    expect(isGoneHere(name)).toBe(false);
  });

  it('a container with the same host name but its own pid namespace is presumed alive, whatever its pid', () => {
    // On Linux the pid namespace is part of "here": a pid from another namespace names nothing here.
    expect(isGoneHere(`${hostname()}#1/${dead}/inst_other_container`)).toBe(false);
    if (process.platform === 'linux') {
      expect(pidSpaceHere()).toBe(`${hostname()}#${pidNamespace()}`);
      // A name from before the namespace was recorded cannot be vouched for either: waited out.
      expect(isGoneHere(`${hostname()}/${dead}/inst_old_format`)).toBe(false);
    }
  });

  it('another machine, or a name it cannot read, is presumed alive', () => {
    expect(isGoneHere(`not-${hostname()}/${dead}/inst_x`)).toBe(false);
    expect(isGoneHere('garbage')).toBe(false);
    expect(isGoneHere(`${pidSpaceHere()}/not-a-pid/inst_x`)).toBe(false);
  });
});
